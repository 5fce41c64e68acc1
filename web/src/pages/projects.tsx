import { useQuery } from '@tanstack/react-query';
import { Plus, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';

import type { Project } from '../api';
import { toast } from '../components/design/toast';
import { LIST_PAGE, ListFilter, ListRange, ListSearch, ListToolbar, NoMatch, useListParams } from '../components/list';
import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Field, Loading, Pager, TableWrap } from '../components/ui';
import { billingQueries } from '../hooks/api/billing';
import { type ProjectListQuery, projectQueries, useCreateProject, useDeleteProject } from '../hooks/api/projects';
import { workspaceQueries } from '../hooks/api/workspaces';
import { formatAgo, formatBytes, formatNumber } from '../locale';
import { useWorkspaceId } from '../workspace';

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
const SORT_VALUES = SORTS.flatMap((s) => (s.value === '' ? [] : [s.value]));
const STATUS_VALUES = STATUSES.flatMap((s) => (s.value === '' ? [] : [s.value]));

export function Projects() {
  const workspaceId = useWorkspaceId();
  const list = useListParams();
  const sort = list.pick('sort', SORT_VALUES);
  const status = list.pick('status', STATUS_VALUES);
  const query: ProjectListQuery = {
    page: list.page,
    limit: LIST_PAGE,
    ...(list.search !== undefined ? { search: list.search } : {}),
    ...(sort ? { sort } : {}),
    ...(status ? { status } : {}),
  };
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
      <ListToolbar label="Projects">
        <ListSearch list={list} label="Search projects" placeholder="Name, slug or domain" />
        <ListFilter list={list} param="sort" label="Sort by" value={sort} options={SORTS} />
        <ListFilter list={list} param="status" label="Show" value={status} options={STATUSES} />
      </ListToolbar>
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
      {meta && meta.total === 0 && filtered ? <NoMatch search={query.search} noun="project" onClear={() => list.update({ q: '', status: '' })} /> : null}
      {projects.data && projects.data.data.length > 0 && meta ? (
        <TableWrap label="Projects">
          <table aria-busy={projects.isPlaceholderData}>
            <caption className="muted">
              <ListRange
                meta={meta}
                shown={projects.data.data.length}
                noun={['project', 'projects']}
                search={query.search}
                pending={projects.isPlaceholderData}
              />
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
                      <ButtonIcon icon={Trash2} />
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {meta ? (
        <Pager page={meta.page} totalPages={meta.totalPages} onPage={(page) => list.update({ page: String(page) }, true)} label="Pages of projects" />
      ) : null}
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
            <ButtonIcon icon={Plus} />
            {create.isPending ? 'Creating…' : 'Create project'}
          </button>
        </div>
      </div>
      <FreePlanLimit workspaceId={workspaceId} />
      <ErrorNote error={create.error} workspaceId={workspaceId} />
    </form>
  );
}
