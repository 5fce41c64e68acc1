import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import type { Project } from '../api';
import { toast } from '../components/design/toast';
import { Truncate } from '../components/truncate';
import { ConfirmMutation, Empty, ErrorNote, Field, Loading, Pager, SelectField, TableWrap, useDebounced } from '../components/ui';
import { billingQueries } from '../hooks/api/billing';
import { type ProjectListQuery, projectQueries, useCreateProject, useDeleteProject } from '../hooks/api/projects';
import { workspaceQueries } from '../hooks/api/workspaces';
import { formatAgo, formatBytes, formatNumber } from '../locale';
import { useWorkspaceId } from '../workspace';

/** Rows per page: a screen or two of projects, so a 200-project workspace is 8 short pages, not one long one. */
const PAGE = 25;

type Sort = NonNullable<ProjectListQuery['sort']>;
type Status = NonNullable<ProjectListQuery['status']>;
const SORTS: { value: Sort | ''; label: string }[] = [
  { value: '', label: 'Newest project' },
  { value: 'name', label: 'Name, A–Z' },
  { value: '-name', label: 'Name, Z–A' },
  { value: '-lastDeploy', label: 'Last deploy, newest' },
  { value: 'lastDeploy', label: 'Last deploy, oldest' },
];
const STATUSES: { value: Status | ''; label: string }[] = [
  { value: '', label: 'All projects' },
  { value: 'live', label: 'Live' },
  { value: 'none', label: 'Not deployed' },
];
const isSort = (v: string | null): v is Sort => SORTS.some((s) => s.value !== '' && s.value === v);
const isStatus = (v: string | null): v is Status => STATUSES.some((s) => s.value !== '' && s.value === v);

/**
 * The list's query lives in the address (`?q=&sort=&status=&page=`), so reload, back and a
 * shared link all show the same list. Values the API would refuse are read as absent.
 */
function useListParams() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const q = (params.get('q') ?? '').trim().slice(0, 100);
  const sort = params.get('sort');
  const status = params.get('status');
  const query: ProjectListQuery = {
    page,
    limit: PAGE,
    ...(q ? { search: q } : {}),
    ...(isSort(sort) ? { sort } : {}),
    ...(isStatus(status) ? { status } : {}),
  };
  /** Sets (or, with '', drops) parameters; any change but the page's starts again at page 1. */
  const update = (changes: Record<string, string>, push = false) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        if (!('page' in changes)) next.delete('page');
        return next;
      },
      { replace: !push },
    );
  return { query, q: params.get('q') ?? '', update };
}

export function Projects() {
  const workspaceId = useWorkspaceId();
  const { query, q, update } = useListParams();
  const projects = useQuery(projectQueries.search(workspaceId, query));
  const [deleting, setDeleting] = useState<Project | null>(null);
  const remove = useDeleteProject(workspaceId, {
    onSuccess: () => {
      toast(`Project ${deleting?.name ?? ''} deleted`);
      setDeleting(null);
    },
  });
  const filtered = query.search !== undefined || query.status !== undefined;
  const meta = projects.data?.meta;

  return (
    <>
      <h1>Projects</h1>
      <CreateProject workspaceId={workspaceId} />
      <h2>All projects</h2>
      <Toolbar q={q} sort={query.sort ?? ''} status={query.status ?? ''} update={update} />
      {projects.isPending ? <Loading what="projects" /> : null}
      <ErrorNote error={projects.error} workspaceId={workspaceId} />
      {meta && meta.total === 0 && !filtered ? (
        <Empty>
          <p>
            No projects yet. A project is one site: its address, its deployments and who may see it. Create one above, or{' '}
            <Link to={`/w/${workspaceId}/get-started`}>see the ways to publish a first site</Link>.
          </p>
        </Empty>
      ) : null}
      {meta && meta.total === 0 && filtered ? (
        <Empty>
          <p role="status">{query.search !== undefined ? <>No project matches “{query.search}”.</> : <>No project matches this filter.</>}</p>
          <button type="button" onClick={() => update({ q: '', status: '' })}>
            {query.search !== undefined ? 'Clear search' : 'Show all projects'}
          </button>
        </Empty>
      ) : null}
      {projects.data && projects.data.data.length > 0 && meta ? (
        <TableWrap label="Projects">
          <table aria-busy={projects.isPlaceholderData}>
            <caption className="muted">
              {formatNumber((meta.page - 1) * meta.limit + 1)}–{formatNumber((meta.page - 1) * meta.limit + projects.data.data.length)} of{' '}
              {formatNumber(meta.total)} project{meta.total === 1 ? '' : 's'}
              {query.search !== undefined ? ` matching “${query.search}”` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Live version</th>
                <th scope="col">Address</th>
                <th scope="col" className="hide-narrow">
                  Gate
                </th>
                <th scope="col" className="hide-narrow">
                  Custom domain
                </th>
                <th scope="col" className="hide-narrow">
                  Size
                </th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {projects.data.data.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link to={`/w/${workspaceId}/projects/${p.id}`}>{p.name}</Link>
                  </td>
                  <td>
                    {p.liveVersion !== null ? (
                      <span>
                        v{p.liveVersion}
                        {p.liveCreatedAt ? <span className="muted"> · {formatAgo(p.liveCreatedAt)}</span> : null}
                      </span>
                    ) : (
                      <span className="muted">Not deployed</span>
                    )}
                  </td>
                  <td>
                    <Truncate value={p.url} href={p.url} label="address" />
                  </td>
                  <td className="hide-narrow">{p.gate_type === 'none' ? <span className="muted">—</span> : p.gate_type}</td>
                  <td className="hide-narrow">
                    <DomainState p={p} />
                  </td>
                  <td className="hide-narrow">{formatBytes(p.liveSizeBytes)}</td>
                  <td>
                    <button type="button" className="small" onClick={() => setDeleting(p)} aria-label={`Delete ${p.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {meta ? <Pager page={meta.page} totalPages={meta.totalPages} onPage={(page) => update({ page: String(page) }, true)} label="Pages of projects" /> : null}
      <ConfirmMutation
        target={deleting}
        mutation={remove}
        variables={(p) => p.id}
        onClose={() => setDeleting(null)}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete project"
        danger
        typed={deleting?.slug}
      >
        <p>
          The site at <span className="mono">{deleting?.url}</span> goes offline and every deployment of the project is deleted. This cannot be undone.
        </p>
      </ConfirmMutation>
    </>
  );
}

function DomainState({ p }: { p: Project }) {
  if (!p.custom_domain) return <span className="muted">—</span>;
  return (
    <>
      <Truncate value={p.custom_domain} label="custom domain" /> <span className={`badge ${p.domainStatus ?? ''}`}>{p.domainStatus}</span>
    </>
  );
}

/** Search (sent once typing pauses), sort and status; each lands in the address. */
function Toolbar({ q, sort, status, update }: { q: string; sort: Sort | ''; status: Status | ''; update: (changes: Record<string, string>) => void }) {
  const [text, setText] = useState(q);
  const settled = useDebounced(text);
  // The address changed from elsewhere (back, "Clear search"): the box follows it.
  useEffect(() => setText((typed) => (typed.trim() === q.trim() ? typed : q)), [q]);
  useEffect(() => {
    if (settled.trim() !== q.trim()) update({ q: settled.trim() });
    // Only a settled change of the text writes the address; `q` catching up must not loop.
  }, [settled]);
  return (
    <div className="list-toolbar" role="search" aria-label="Projects">
      <Field
        label="Search projects"
        type="search"
        placeholder="Name, slug or domain"
        maxLength={100}
        value={text}
        onChange={(e) => setText(e.target.value)}
        autoComplete="off"
      />
      <SelectField label="Sort by" value={sort} onChange={(e) => update({ sort: e.target.value })}>
        {SORTS.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </SelectField>
      <SelectField label="Show" value={status} onChange={(e) => update({ status: e.target.value })}>
        {STATUSES.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </SelectField>
    </div>
  );
}

/** "2 of 3 projects on the free plan": the limit shown where it bites, before a 402 does. Owners only: only they may read billing. */
function FreePlanLimit({ workspaceId }: { workspaceId: string }) {
  const workspace = useQuery(workspaceQueries.detail(workspaceId));
  const usage = useQuery({ ...billingQueries.usage(workspaceId), enabled: workspace.data?.role === 'owner' });
  const projects = usage.data?.usage.projects;
  if (usage.data?.plan !== 'free' || !projects || projects.limit === null) return null;
  const full = projects.used >= projects.limit;
  return (
    <p className={full ? 'note warn' : 'muted'}>
      {formatNumber(projects.used)} of {formatNumber(projects.limit)} projects on the free plan{full ? ': this workspace can create no more' : ''} —{' '}
      <Link to={`/w/${workspaceId}/billing`}>Upgrade</Link>
    </p>
  );
}

function CreateProject({ workspaceId }: { workspaceId: string }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const navigate = useNavigate();
  const create = useCreateProject(workspaceId, {
    onSuccess: (project) => {
      toast(`Project ${project.name} created`);
      void navigate(`/w/${workspaceId}/projects/${project.id}/deploy`);
    },
  });
  return (
    <form
      className="panel"
      aria-label="Create a project"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        create.mutate({ name, ...(slug ? { slug } : {}) });
      }}
    >
      <div className="row">
        <Field label="Project name" required value={name} onChange={(e) => setName(e.target.value)} />
        <Field label="Slug (optional)" hint="The site's address; derived from the name when empty." value={slug} onChange={(e) => setSlug(e.target.value)} />
        <div className="field">
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create project'}
          </button>
        </div>
      </div>
      <FreePlanLimit workspaceId={workspaceId} />
      <ErrorNote error={create.error} workspaceId={workspaceId} />
    </form>
  );
}
