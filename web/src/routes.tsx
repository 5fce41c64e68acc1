import { createBrowserRouter, Navigate } from 'react-router';
import { Shell, WorkspaceScope } from './components/shell';
import { Home, NotFound } from './pages/home';
import { Invitations } from './pages/invitations';
import { ProjectLayout } from './pages/project-layout';
import { Projects } from './pages/projects';
import { Deployments, DeploymentFiles } from './pages/deployments';
import { Deploy } from './pages/deploy';
import { ProjectSettings } from './pages/settings';
import { Register, ResetPassword, SignIn, VerifyEmail } from './pages/auth';

/** Every dashboard path lives under /app (the server answers index.html for any of them). */
export const router = createBrowserRouter(
  [
    { path: 'sign-in', element: <SignIn /> },
    { path: 'register', element: <Register /> },
    { path: 'verify-email', element: <VerifyEmail /> },
    { path: 'reset-password', element: <ResetPassword /> },
    {
      element: <Shell />,
      children: [
        { index: true, element: <Home /> },
        { path: 'invitations', element: <Invitations /> },
        {
          path: 'w/:workspaceId',
          element: <WorkspaceScope />,
          children: [
            { index: true, element: <Navigate to="projects" replace /> },
            { path: 'projects', element: <Projects /> },
            {
              path: 'projects/:projectId',
              element: <ProjectLayout />,
              children: [
                { index: true, element: <Deployments /> },
                { path: 'deploy', element: <Deploy /> },
                { path: 'settings', element: <ProjectSettings /> },
                { path: 'deployments/:deploymentId', element: <DeploymentFiles /> },
              ],
            },
          ],
        },
        { path: '*', element: <NotFound /> },
      ],
    },
  ],
  { basename: '/app' },
);
