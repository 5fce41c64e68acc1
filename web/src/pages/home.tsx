import { Link, Navigate } from 'react-router';

import { Empty, ErrorNote, Loading } from '../components/ui';
import { useWorkspaces } from '../hooks/api/workspaces';

/** /app/: the first workspace's projects. */
export function Home() {
  const workspaces = useWorkspaces();
  if (workspaces.isPending) return <Loading what="workspaces" />;
  if (workspaces.error) return <ErrorNote error={workspaces.error} />;
  const first = workspaces.data.data[0];
  if (!first)
    return (
      <Empty>
        You are not a member of any workspace. <Link to="/invitations">See your invitations</Link>.
      </Empty>
    );
  return <Navigate to={`/w/${first.id}/projects`} replace />;
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
