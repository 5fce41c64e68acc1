import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';

import type { Project } from '../api';
import { toast } from '../components/design/toast';
import { ConfirmMutation, Empty, ErrorNote, Field, Loading, Pager, TableWrap } from '../components/ui';
import { projectQueries, useCreateProject, useDeleteProject } from '../hooks/api/projects';
import { formatBytes } from '../locale';
import { useWorkspaceId } from '../workspace';

const PAGE = 100;

function DomainState({ p }: { p: Project }) {
  if (!p.custom_domain) return <span className="muted">—</span>;
  return (
    <>
      <span className="mono">{p.custom_domain}</span> <span className={`badge ${p.domainStatus ?? ''}`}>{p.domainStatus}</span>
    </>
  );
}

export function Projects() {
  const workspaceId = useWorkspaceId();
  const [page, setPage] = useState(1);
  const projects = useQuery(projectQueries.list(workspaceId, page, PAGE));
  const [deleting, setDeleting] = useState<Project | null>(null);
  const remove = useDeleteProject(workspaceId, {
    onSuccess: () => {
      toast(`Project ${deleting?.name ?? ''} deleted`);
      setDeleting(null);
    },
  });

  return (
    <>
      <h1>Projects</h1>
      <CreateProject workspaceId={workspaceId} />
      <h2>All projects</h2>
      {projects.isPending ? <Loading what="projects" /> : null}
      <ErrorNote error={projects.error} workspaceId={workspaceId} />
      {projects.data && projects.data.meta.total === 0 ? <Empty>No projects yet: create one above, then deploy a folder to it.</Empty> : null}
      {projects.data && projects.data.data.length > 0 ? (
        <TableWrap label="Projects">
          <table>
            <caption className="muted">
              {projects.data.meta.total} project{projects.data.meta.total === 1 ? '' : 's'}
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
                    <div className="muted mono">{p.slug}</div>
                  </td>
                  <td>
                    {p.liveVersion !== null ? (
                      <span className="badge live">v{p.liveVersion} live</span>
                    ) : (
                      <span className="badge offline">no live deployment</span>
                    )}
                  </td>
                  <td>
                    <a href={p.url} target="_blank" rel="noreferrer" className="mono">
                      {p.url.replace(/^https?:\/\//, '')}
                    </a>
                  </td>
                  <td className="hide-narrow">{p.gate_type}</td>
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
      {projects.data ? <Pager page={page} totalPages={projects.data.meta.totalPages} onPage={setPage} /> : null}
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
      <ErrorNote error={create.error} workspaceId={workspaceId} />
    </form>
  );
}
