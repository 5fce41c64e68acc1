import { useQuery } from '@tanstack/react-query';
import { Link, Navigate } from 'react-router';

import { Empty, ErrorNote, Loading } from '../components/ui';
import { projectQueries } from '../hooks/api/projects';
import { useWorkspaces } from '../hooks/api/workspaces';

/**
 * /app/: the first workspace's projects, or, when it has none yet and the user may create
 * one (owner or admin), the page that publishes the first site instead of an empty table.
 */
export function Home() {
  const workspaces = useWorkspaces();
  const first = workspaces.data?.data[0];
  const canCreate = first?.role === 'owner' || first?.role === 'admin';
  // Only the total matters: one row is enough to know the list is not empty.
  const projects = useQuery({ ...projectQueries.list(first?.id ?? '', 1, 1), enabled: canCreate });
  if (workspaces.isPending) return <Loading what="workspaces" />;
  if (workspaces.error) return <ErrorNote error={workspaces.error} />;
  if (!first)
    return (
      <Empty title="No workspace">
        You are not a member of any workspace. <Link to="/invitations">See your invitations</Link>.
      </Empty>
    );
  if (canCreate && projects.isPending) return <Loading what="projects" />;
  // Unknown (the list failed): the projects page says why, where the user can act on it.
  const empty = canCreate && projects.data?.meta.total === 0;
  return <Navigate to={`/w/${first.id}/${empty ? 'get-started' : 'projects'}`} replace />;
}

export function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        This dashboard page does not exist. <Link to="/">Go to your projects</Link>.
      </p>
    </>
  );
}
