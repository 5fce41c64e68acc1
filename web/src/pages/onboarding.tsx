import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowRight, GitBranch, Rocket } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';

import { slugFromName } from '../../../packages/shared/slug';
import type { Project } from '../api';
import { FolderDropzone, FolderProgress, PickedSummary } from '../components/dropzone';
import { Truncate } from '../components/truncate';
import { ButtonIcon, CopyButton, ErrorNote, Field } from '../components/ui';
import { deployDigestFirst, type DeployProgress, hashFiles, type PickedFile, sitePaths } from '../deploy';
import { invalidateDeployments } from '../hooks/api/deployments';
import { projectQueries, useCreateProject } from '../hooks/api/projects';
import { useWorkspaceId } from '../workspace';

/** How often the page asks whether a site went live while it waits (a deploy from the CLI or a build shows up within this). */
const WATCH_MS = 2_000;

const PHASES: Record<DeployProgress['phase'], string> = {
  hashing: 'Reading and hashing files',
  checking: 'Asking the service which files it already has',
  uploading: 'Uploading new content',
  deploying: 'Publishing',
  done: 'Published',
};

/** The top folder of a picked folder (`site/index.html` → `site`), to name the site after it. */
function folderName(picked: { relativePath: string }[]): string | undefined {
  const first = picked[0]?.relativePath.split('/').filter(Boolean);
  return first && first.length > 1 ? first[0] : undefined;
}

/**
 * /w/:workspaceId/get-started: where a new account lands. Three ways to publish (a folder
 * from this page, a Git repository, the CLI); it ends when any project of the workspace has
 * a live deployment, whichever way it came, so the page watches the projects until then.
 */
export function Onboarding() {
  const workspaceId = useWorkspaceId();
  const projects = useQuery({
    ...projectQueries.list(workspaceId, 1, 25),
    // Stops asking once a site is live: the page has reached its end.
    refetchInterval: (query) => (query.state.data?.data.some((p) => p.liveVersion !== null) ? false : WATCH_MS),
  });
  const live = projects.data?.data.find((p) => p.liveVersion !== null);
  const [name, setName] = useState('');
  // Until the user types a name, picking a folder names the site after it.
  const [named, setNamed] = useState(false);
  const slug = slugFromName(name);

  return (
    <>
      <h1>Publish your first site</h1>
      {live ? <Live workspaceId={workspaceId} project={live} /> : null}
      <p>Put a folder of HTML, CSS and images online in a minute. Name the site, then pick one of the three ways below.</p>
      <div className="panel">
        <Field
          label="Site name"
          placeholder="My site"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setNamed(e.target.value !== '');
          }}
          hint={slug ? `Its address starts with ${slug}.` : 'Letters, digits and dashes make its address.'}
        />
      </div>
      <div className="onboarding-ways">
        <FolderWay
          name={name}
          onFolderName={(folder) => {
            if (!named) setName(folder);
          }}
        />
        <GitWay name={name} />
        <CliWay slug={slug || 'my-site'} />
      </div>
      {live ? null : (
        <p className="muted" role="status">
          Waiting for the first deployment: this page notices it, whichever way it comes.
        </p>
      )}
    </>
  );
}

function Live({ workspaceId, project }: { workspaceId: string; project: Project }) {
  const heading = useId();
  return (
    <section className="note ok onboarding-live" aria-labelledby={heading}>
      <h2 id={heading}>Your site is live</h2>
      <p>
        {project.name} is online at <Truncate value={project.url} href={project.url} label="Address" />
      </p>
      <p>
        <Link className="button primary" to={`/w/${workspaceId}/projects/${project.id}`}>
          <ButtonIcon icon={ArrowRight} />
          Open the project
        </Link>
      </p>
    </section>
  );
}

/** Drag a folder here: the deploy page's digest-first upload, into a project created for it. */
function FolderWay({ name, onFolderName }: { name: string; onFolderName: (name: string) => void }) {
  const workspaceId = useWorkspaceId();
  const queryClient = useQueryClient();
  const heading = useId();
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [progress, setProgress] = useState<DeployProgress | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Created once: a retry after a failed upload deploys to the same project instead of a second one.
  const project = useRef<{ id: string; name: string } | null>(null);
  const create = useCreateProject(workspaceId);
  const busy = progress !== null && progress.phase !== 'done';

  const choose = (picked: { relativePath: string; file: File }[]) => {
    setFiles(sitePaths(picked));
    setError(null);
    setProgress(null);
    const folder = folderName(picked);
    if (folder) onFolderName(folder);
  };

  const start = async () => {
    setError(null);
    try {
      if (!name.trim()) throw new Error('Name the site first (the Site name field above).');
      if (!project.current || project.current.name !== name.trim()) {
        const created = await create.mutateAsync({ name: name.trim(), ...(slugFromName(name) ? { slug: slugFromName(name) } : {}) });
        project.current = { id: created.id, name: name.trim() };
      }
      setProgress({ phase: 'hashing', bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: files.length });
      const hashed = await hashFiles(files, () => undefined);
      await deployDigestFirst(workspaceId, project.current.id, hashed, { publish: true }, setProgress);
      // The watch above sees the live site at once, without waiting for its next poll.
      await invalidateDeployments(queryClient, workspaceId, project.current.id);
    } catch (err) {
      setError(err);
      setProgress(null);
    }
  };

  return (
    <section className="panel" aria-labelledby={heading}>
      <h2 id={heading}>Drag a folder here</h2>
      <FolderDropzone prompt="Drop the folder that holds your index.html, or" onPick={choose} onError={setError} />
      <PickedSummary files={files} />
      <button type="button" className="primary" disabled={files.length === 0 || busy} onClick={() => void start()}>
        <ButtonIcon icon={Rocket} />
        {busy ? 'Publishing…' : 'Publish'}
      </button>
      {progress ? <FolderProgress progress={progress}>{PHASES[progress.phase]}</FolderProgress> : null}
      <ErrorNote error={error} workspaceId={workspaceId} />
    </section>
  );
}

/** Connect a Git repository: the project is created here, its Git settings (a form of their own) take it from there. */
function GitWay({ name }: { name: string }) {
  const workspaceId = useWorkspaceId();
  const navigate = useNavigate();
  const heading = useId();
  const [unnamed, setUnnamed] = useState(false);
  const create = useCreateProject(workspaceId, {
    // The settings page puts the repository field in focus when it is opened at #git.
    onSuccess: (project) => void navigate(`/w/${workspaceId}/projects/${project.id}/settings#git`),
  });
  return (
    <section className="panel" aria-labelledby={heading}>
      <h2 id={heading}>Connect a Git repository</h2>
      <p>Each push builds the site: the production branch goes live, other branches and pull requests get a preview address.</p>
      <button
        type="button"
        disabled={create.isPending}
        onClick={() => {
          setUnnamed(!name.trim());
          if (name.trim()) create.mutate({ name: name.trim(), ...(slugFromName(name) ? { slug: slugFromName(name) } : {}) });
        }}
      >
        <ButtonIcon icon={GitBranch} />
        {create.isPending ? 'Creating the project…' : 'Create the project and connect a repository'}
      </button>
      <ErrorNote error={unnamed ? new Error('Name the site first (the Site name field above).') : create.error} workspaceId={workspaceId} />
    </section>
  );
}

/** Copy the CLI lines: this server's own address, so `login` stores the right API and `deploy` needs nothing else. */
function CliWay({ slug }: { slug: string }) {
  const heading = useId();
  const lines = [
    { what: 'Sign in (asks for your email and password, and stores an API token):', line: `npx statichost login --api-url ${window.location.origin}` },
    { what: 'Deploy a folder (the project is created on the first deploy):', line: `npx statichost deploy ./dist --project ${slug}` },
  ];
  return (
    <section className="panel" aria-labelledby={heading}>
      <h2 id={heading}>Deploy from the command line</h2>
      {lines.map(({ what, line }) => (
        <div key={line} className="cli-line">
          <p>{what}</p>
          <div className="cli-line-code">
            {/* Focusable: on a phone the line scrolls in its box, and a keyboard must be able to scroll it too. */}
            <code tabIndex={0}>{line}</code>
            <CopyButton text={line} />
          </div>
        </div>
      ))}
    </section>
  );
}
