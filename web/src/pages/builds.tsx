import { useQuery, useQueryClient } from '@tanstack/react-query';
import { GitBranch, RefreshCw } from 'lucide-react';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import { ApiError, type Build, messageOf } from '../api';
import { commitTitle, forgeStatusLabel, formatDuration, isActive, shortSha, statusLabel, triggerLabel } from '../builds';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Loading, Pager, TableWrap } from '../components/ui';
import { buildQueries, followBuildLog, invalidateBuilds, useCancelBuild, useStartBuild } from '../hooks/api/builds';
import { gitQueries } from '../hooks/api/git';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

/** The server has no runner (503 `builds_unavailable`): its message says what to install, and asking again will not help. */
function unavailable(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'builds_unavailable';
}

function StatusBadge({ status }: { status: string }) {
  return <span className={`badge build-${status}`}>{statusLabel(status)}</span>;
}

/** Code from outside the repository (a fork's pull request, or a bare commit never seen on it): it built without the project's environment variables. */
function ForkBadge({ build }: { build: Build }) {
  return build.fork ? (
    <span className="badge fork" title={OUTSIDE_CODE}>
      {build.pullRequest === null ? 'outside code' : 'fork'}
    </span>
  ) : null;
}

const OUTSIDE_CODE =
  'Code from outside the repository (a fork’s pull request, or a commit no build of the repository had checked out): built without the project’s environment variables';

/** The commit status on the forge, when the project posts one (it has an access token). */
function ForgeStatus({ build }: { build: Build }) {
  const label = forgeStatusLabel(build);
  if (!label) return null;
  return <span className={`forge-status forge-${build.forgeStatus}`}>Commit status {label}</span>;
}

/**
 * Starts a build of `ref` and opens its page. When the server cannot run builds the
 * button stays disabled and the server's message (what to install) stays beside it.
 */
function StartBuildButton({ refName, label }: { refName: string; label: string }) {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const navigate = useNavigate();
  const start = useStartBuild(workspaceId, project.id, {
    onSuccess: (build) => navigate(`/w/${workspaceId}/projects/${project.id}/builds/${build.id}`),
  });
  const refused = unavailable(start.error);
  return (
    <>
      <button type="button" className="primary" disabled={start.isPending || refused} onClick={() => start.mutate({ ref: refName })}>
        <ButtonIcon icon={RefreshCw} />
        {start.isPending ? 'Starting…' : label}
      </button>
      {refused ? (
        <div role="alert" className="note error">
          <strong>Builds are unavailable on this server: </strong>
          {messageOf(start.error)}
        </div>
      ) : (
        <ErrorNote error={start.error} workspaceId={workspaceId} />
      )}
    </>
  );
}

export function Builds() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const [page, setPage] = useState(1);
  const git = useQuery(gitQueries.settings(workspaceId, project.id));
  const list = useQuery(buildQueries.list(workspaceId, project.id, page, 20));
  const [canceling, setCanceling] = useState<Build | null>(null);
  const cancel = useCancelBuild(workspaceId, project.id, { onSuccess: () => setCanceling(null) });
  const base = `/w/${workspaceId}/projects/${project.id}`;

  return (
    <>
      <h2>Builds</h2>
      <ErrorNote error={git.error} />
      {git.data === null ? (
        <Empty
          title="No repository connected"
          action={
            <Link className="button primary" to={`${base}/settings#git`}>
              <ButtonIcon icon={GitBranch} />
              Connect a Git repository
            </Link>
          }
        >
          Builds run the site’s build command on each push and deploy what it outputs. Connect a Git repository to build each commit.
        </Empty>
      ) : null}
      {git.data ? (
        <div className="panel">
          <p>
            Builds <span className="mono">{git.data.repository}</span>; the branch <span className="mono">{git.data.productionBranch}</span> goes live.
          </p>
          <StartBuildButton refName={git.data.productionBranch} label="Build now" />
        </div>
      ) : null}
      {list.isPending ? <Loading what="builds" /> : null}
      <ErrorNote error={list.error} />
      {list.data && list.data.meta.total === 0 && git.data ? (
        <Empty title="No builds yet">
          Each push to the repository builds here once its webhook is set; Build now (above) builds the production branch at once.
        </Empty>
      ) : null}
      {list.data && list.data.data.length > 0 ? (
        <TableWrap label="Builds">
          <table>
            <thead>
              <tr>
                <th scope="col">Build</th>
                <th scope="col">Status</th>
                <th scope="col">Commit</th>
                <th scope="col" className="hide-narrow">
                  Duration
                </th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((b) => (
                <tr key={b.id}>
                  <td>
                    <Link to={`${base}/builds/${b.id}`} className="mono">
                      {b.branch ?? b.ref}
                    </Link>
                    <small className="cell-note">
                      {triggerLabel(b)} <ForkBadge build={b} />
                    </small>
                  </td>
                  <td>
                    <StatusBadge status={b.status} />
                    {forgeStatusLabel(b) ? (
                      <small className="cell-note">
                        <ForgeStatus build={b} />
                      </small>
                    ) : null}
                  </td>
                  <td>
                    <span className="mono">{shortSha(b.commitSha)}</span> <span className="commit-title">{commitTitle(b.commitMessage)}</span>
                  </td>
                  <td className="hide-narrow">{formatDuration(b.durationMs)}</td>
                  <td className="hide-narrow">{formatTime(b.createdAt)}</td>
                  <td>
                    {isActive(b.status) ? (
                      <button type="button" className="small" onClick={() => setCanceling(b)}>
                        Cancel<span className="skip"> the build of {b.branch ?? b.ref}</span>
                      </button>
                    ) : b.url && b.status === 'ready' ? (
                      <a href={b.url} target="_blank" rel="noreferrer">
                        Open<span className="skip"> the build of {b.branch ?? b.ref}</span>
                      </a>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {list.data ? <Pager page={page} totalPages={list.data.meta.totalPages} onPage={setPage} previous="Newer" next="Older" /> : null}
      <ConfirmMutation
        target={canceling}
        mutation={cancel}
        variables={(b) => b.id}
        onClose={() => setCanceling(null)}
        title={`Cancel the build of ${canceling?.branch ?? canceling?.ref ?? ''}?`}
        confirmLabel="Cancel build"
        danger
      >
        <p>Its processes are stopped; what is live does not change.</p>
      </ConfirmMutation>
    </>
  );
}

/**
 * The build's log as it is written: one `?follow=1` request whose answer the server
 * keeps open until the build ends. The view sticks to the bottom unless the reader has
 * scrolled up. When the answer ends, the record is fetched again (its final status).
 */
function BuildLog({ buildId }: { buildId: string }) {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [state, setState] = useState<'streaming' | 'ended' | 'failed'>('streaming');
  const [error, setError] = useState<unknown>(null);
  const box = useRef<HTMLPreElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const controller = new AbortController();
    setText('');
    setState('streaming');
    setError(null);
    followBuildLog(workspaceId, project.id, buildId, (piece) => setText((t) => t + piece), controller.signal)
      .then(() => {
        setState('ended');
        return invalidateBuilds(queryClient, workspaceId, project.id);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setState('failed');
        setError(err);
      });
    return () => controller.abort();
  }, [workspaceId, project.id, buildId, queryClient]);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  return (
    <>
      <h3>Log</h3>
      <pre
        ref={box}
        className="build-log"
        tabIndex={0}
        aria-label="Build log"
        aria-busy={state === 'streaming'}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {text || (state === 'streaming' ? 'Waiting for the build’s first line…' : 'The log is empty.')}
      </pre>
      <p className="muted" role="status">
        {state === 'streaming' ? 'Following the log as the build runs…' : state === 'ended' ? 'End of the log.' : null}
      </p>
      <ErrorNote error={error} />
    </>
  );
}

export function BuildDetail() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const { buildId } = useParams() as { buildId: string };
  const detail = useQuery(buildQueries.detail(workspaceId, project.id, buildId));
  const [canceling, setCanceling] = useState<Build | null>(null);
  const cancel = useCancelBuild(workspaceId, project.id, { onSuccess: () => setCanceling(null) });
  const base = `/w/${workspaceId}/projects/${project.id}`;
  const b = detail.data;

  return (
    <>
      <p>
        <Link to={`${base}/builds`}>← All builds</Link>
      </p>
      {detail.isPending ? <Loading what="the build" /> : null}
      <ErrorNote error={detail.error} />
      {b ? (
        <>
          <h2>
            Build of <span className="mono">{b.branch ?? b.ref}</span> <StatusBadge status={b.status} />
          </h2>
          <dl className="facts">
            <div>
              <dt>Commit</dt>
              <dd>
                <span className="mono">{shortSha(b.commitSha)}</span> {commitTitle(b.commitMessage)}
              </dd>
            </div>
            <div>
              <dt>Trigger</dt>
              <dd>
                {triggerLabel(b)} <ForkBadge build={b} />
                {b.fork ? <span className="muted"> {OUTSIDE_CODE}.</span> : null}
              </dd>
            </div>
            {forgeStatusLabel(b) ? (
              <div>
                <dt>On the forge</dt>
                <dd>
                  <ForgeStatus build={b} />
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Ref</dt>
              <dd className="mono">{b.ref}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatTime(b.createdAt)}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{formatTime(b.startedAt)}</dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>{formatTime(b.finishedAt)}</dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>{formatDuration(b.durationMs)}</dd>
            </div>
            {b.detected ? (
              <div>
                <dt>Detected</dt>
                <dd>
                  {b.detected.framework ?? 'no framework'} · {b.detected.packageManager ?? 'no package manager'} · install{' '}
                  <span className="mono">{b.detected.installCommand ?? '—'}</span> · build <span className="mono">{b.detected.buildCommand ?? '—'}</span> ·
                  output <span className="mono">{b.detected.outputDirectory ?? '—'}</span>
                </dd>
              </div>
            ) : null}
            {b.deploymentId ? (
              <div>
                <dt>Deployment</dt>
                <dd>
                  <Link to={`${base}/deployments/${b.deploymentId}`} className="mono">
                    {b.deploymentId}
                  </Link>
                </dd>
              </div>
            ) : null}
            {b.url ? (
              <div>
                <dt>Address</dt>
                <dd>
                  <a href={b.url} target="_blank" rel="noreferrer" className="mono">
                    {b.url}
                  </a>
                </dd>
              </div>
            ) : null}
          </dl>
          {b.error ? (
            <div role="alert" className="note error">
              <strong>{b.status === 'timed_out' ? 'Timed out: ' : b.status === 'canceled' ? 'Canceled: ' : 'Failed: '}</strong>
              {b.error}
            </div>
          ) : null}
          <div className="actions">
            {isActive(b.status) ? (
              <button type="button" className="danger" onClick={() => setCanceling(b)}>
                Cancel build
              </button>
            ) : (
              <StartBuildButton refName={b.ref} label="Redeploy" />
            )}
          </div>
          <BuildLog buildId={b.id} />
          <ConfirmMutation
            target={canceling}
            mutation={cancel}
            variables={(x) => x.id}
            onClose={() => setCanceling(null)}
            title="Cancel this build?"
            confirmLabel="Cancel build"
            danger
          >
            <p>Its processes are stopped; what is live does not change.</p>
          </ConfirmMutation>
        </>
      ) : null}
    </>
  );
}
