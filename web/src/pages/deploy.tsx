import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Upload } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';

import type { Deployment } from '../api';
import { FolderDropzone, FolderProgress, PickedSummary } from '../components/dropzone';
import { RuleWarnings } from '../components/rule-warnings';
import { ButtonIcon, ErrorNote, Field } from '../components/ui';
import { deployDigestFirst, type DeployProgress, hashFiles, type PickedFile, sitePaths } from '../deploy';
import { billingQueries } from '../hooks/api/billing';
import { invalidateDeployments } from '../hooks/api/deployments';
import { billingUsageKeys } from '../hooks/api/query-keys';
import { formatBytes, formatNumber } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

const PHASES: Record<DeployProgress['phase'], string> = {
  hashing: 'Reading and hashing files',
  checking: 'Asking the service which files it already has',
  uploading: 'Uploading new content',
  deploying: 'Publishing',
  done: 'Done',
};

/** A live deployment is seen at the project's address; a preview only at its own. */
function siteOf(d: Deployment): string {
  return d.status === 'live' ? d.url : (d.previewUrl ?? d.url);
}

export function Deploy() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const queryClient = useQueryClient();
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [ttl, setTtl] = useState('');
  const [publish, setPublish] = useState(true);
  const [progress, setProgress] = useState<DeployProgress | null>(null);
  const [hashed, setHashed] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<{ deployment: Deployment; uploadedFiles: number; uploadedBytes: number } | null>(null);
  const busy = progress !== null && progress.phase !== 'done';

  const choose = (picked: { relativePath: string; file: File }[]) => {
    setFiles(sitePaths(picked));
    setResult(null);
    setError(null);
    setProgress(null);
  };

  const start = async () => {
    setError(null);
    setResult(null);
    setHashed(0);
    // The latest figures a frame will show; an error clears them, so a frame still pending
    // cannot bring back the progress bar (and a disabled Deploy button) after it.
    let latest: DeployProgress | null = null;
    try {
      setProgress({ phase: 'hashing', bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: files.length });
      // Per-file progress would re-render the page a thousand times for a thousand files:
      // the screen takes the latest figures once per frame.
      let count = 0;
      const showHashed = oncePerFrame(() => setHashed(count));
      const withHashes = await hashFiles(files, () => {
        count++;
        showHashed();
      });
      const showProgress = oncePerFrame(() => setProgress(latest));
      const answer = await deployDigestFirst(workspaceId, project.id, withHashes, { ttl: ttl || undefined, publish }, (p) => {
        latest = p;
        if (p.phase === 'done') setProgress(p);
        else showProgress();
      });
      setResult(answer);
      await invalidateDeployments(queryClient, workspaceId, project.id);
      // The month's deploy count shown above the form has just gone up.
      await queryClient.invalidateQueries({ queryKey: billingUsageKeys.all(workspaceId) });
    } catch (err) {
      latest = null;
      setError(err);
      setProgress(null);
    }
  };

  return (
    <>
      <h2>Deploy a folder</h2>
      <FolderDropzone
        id="folder-input"
        prompt="Drop a folder here, or"
        hint="Hidden files and node_modules are left out, as the CLI does."
        onPick={choose}
        onError={setError}
      />
      <PickedSummary files={files} />
      <div className="row">
        <Field
          label="Time to live"
          placeholder={project.default_ttl}
          hint={`e.g. 1d, 30d, forever. Empty: the project’s default (${project.default_ttl}).`}
          value={ttl}
          onChange={(e) => setTtl(e.target.value)}
        />
      </div>
      <PlanLimits workspaceId={workspaceId} ttl={ttl} projectDefault={project.default_ttl} />
      <fieldset>
        <legend>When it is uploaded</legend>
        <label>
          <input type="radio" name="publish" checked={publish} onChange={() => setPublish(true)} /> Publish now
        </label>
        <label>
          <input type="radio" name="publish" checked={!publish} onChange={() => setPublish(false)} /> Preview only (promote later)
        </label>
      </fieldset>
      <button type="button" className="primary" disabled={files.length === 0 || busy} onClick={() => void start()}>
        <ButtonIcon icon={Upload} />
        {busy ? 'Deploying…' : 'Deploy'}
      </button>
      {progress ? (
        <FolderProgress progress={progress} className="panel">
          {PHASES[progress.phase]}
          {progress.phase === 'hashing' ? ` (${hashed} of ${files.length})` : ''}
        </FolderProgress>
      ) : null}
      <ErrorNote error={error} workspaceId={workspaceId} />
      {result ? (
        <div className="note ok" role="status">
          Version {result.deployment.version} is {result.deployment.status === 'live' ? 'live' : 'deployed as a preview'} at{' '}
          <a href={siteOf(result.deployment)} target="_blank" rel="noreferrer">
            {siteOf(result.deployment)}
          </a>
          . {result.uploadedFiles} new file{result.uploadedFiles === 1 ? '' : 's'} ({formatBytes(result.uploadedBytes)}) uploaded; the rest the service already
          had. <Link to={`/w/${workspaceId}/projects/${project.id}`}>See the deployments</Link>
        </div>
      ) : null}
      {result ? <RuleWarnings warnings={result.deployment.warnings} /> : null}
    </>
  );
}

/** Hours in a TTL as the API writes it (`12h`, `7d`); Infinity for `forever`; null for anything else (the API's to refuse). */
function ttlHours(ttl: string): number | null {
  if (ttl === 'forever') return Infinity;
  const m = /^(\d+)([hd])$/.exec(ttl.trim());
  return m ? Number(m[1]) * (m[2] === 'd' ? 24 : 1) : null;
}

function describeTtl(ttl: string): string {
  const m = /^(\d+)([hd])$/.exec(ttl.trim());
  if (!m) return ttl;
  const n = Number(m[1]);
  return `${formatNumber(n)} ${m[2] === 'd' ? 'day' : 'hour'}${n === 1 ? '' : 's'}`;
}

/**
 * The plan's limits where a deploy meets them (issue 33), read from the plan, not written
 * here: how long this deployment will live when the plan caps it (the service shortens the
 * project's default to the cap, and refuses a longer TTL typed in), and the month's deploys.
 */
function PlanLimits({ workspaceId, ttl, projectDefault }: { workspaceId: string; ttl: string; projectDefault: string }) {
  const usage = useQuery(billingQueries.usage(workspaceId));
  const plans = useQuery(billingQueries.plans());
  if (!usage.data) return null;
  const { limits, plan } = usage.data;
  const deploys = usage.data.usage.deploymentsPerMonth;
  const max = limits.maxTtl;
  const maxHours = max === null ? null : ttlHours(max);
  // The first tier that keeps deployments longer than this one: the one to name.
  const longer = plans.data?.data.find((p) => p.tier !== plan && (p.limits.maxTtl === null || (ttlHours(p.limits.maxTtl) ?? 0) > (maxHours ?? Infinity)));
  const upgrade = (
    <Link to={`/w/${workspaceId}/billing`}>keep it longer on {longer ? longer.tier[0].toUpperCase() + longer.tier.slice(1) : 'a larger plan'}</Link>
  );
  const typed = ttl.trim() ? ttlHours(ttl) : null;
  let expiry = null;
  if (max !== null && maxHours !== null) {
    if (typed !== null && typed > maxHours) {
      expiry = (
        <>
          The {plan} plan keeps a deployment {describeTtl(max)} at most, so {ttl.trim()} will be refused — {upgrade}.
        </>
      );
    } else {
      const chosen = ttl.trim() || projectDefault;
      const hours = ttlHours(chosen);
      // No TTL typed: the service gives the project's default, shortened to the plan's cap.
      const effective = typed === null && (hours === null || hours > maxHours) ? max : chosen;
      expiry = (
        <>
          Expires in {describeTtl(effective)} — {upgrade}.
        </>
      );
    }
  }
  if (!expiry && deploys.limit === null) return null;
  return (
    <div className="note plan-limits">
      {expiry ? <p>{expiry}</p> : null}
      {deploys.limit !== null ? (
        <p>
          {formatNumber(deploys.used)} of {formatNumber(deploys.limit)} deploys this month
          {deploys.used >= deploys.limit ? ': the next one will be refused until the month ends or the plan grows.' : '.'}
        </p>
      ) : null}
    </div>
  );
}

/** Calls `show` at most once per animation frame, however often it is asked to. */
function oncePerFrame(show: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      show();
    });
  };
}
