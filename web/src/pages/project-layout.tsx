import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useOutletContext, useParams } from 'react-router';

import type { Project } from '../api';
import { Truncate } from '../components/truncate';
import { ErrorNote, Loading } from '../components/ui';
import { projectQueries } from '../hooks/api/projects';

export function useProject(): Project {
  return useOutletContext<Project>();
}

export function ProjectLayout() {
  const { workspaceId, projectId } = useParams() as { workspaceId: string; projectId: string };
  const project = useQuery(projectQueries.detail(workspaceId, projectId));
  const base = `/w/${workspaceId}/projects/${projectId}`;
  if (project.isPending) return <Loading what="the project" />;
  if (project.error) return <ErrorNote error={project.error} />;
  const p = project.data;
  return (
    <>
      <h1>{p.name}</h1>
      <p className="project-address">
        <Truncate value={p.url} href={p.url} label="address" />{' '}
        {p.liveVersion !== null ? <span className="badge live">v{p.liveVersion} live</span> : <span className="badge offline">no live deployment</span>}
      </p>
      <nav className="tabs" aria-label="Project">
        <NavLink to={base} end>
          Deployments
        </NavLink>
        <NavLink to={`${base}/builds`}>Builds</NavLink>
        <NavLink to={`${base}/previews`}>Previews</NavLink>
        <NavLink to={`${base}/deploy`}>Deploy</NavLink>
        <NavLink to={`${base}/analytics`}>Analytics</NavLink>
        <NavLink to={`${base}/leads`}>Leads</NavLink>
        <NavLink to={`${base}/forms`}>Forms</NavLink>
        <NavLink to={`${base}/settings`}>Settings</NavLink>
      </nav>
      <Outlet context={p} />
    </>
  );
}
