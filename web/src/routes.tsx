import { createBrowserRouter, Navigate } from 'react-router';

import { RouteError } from './components/route-error';
import { Shell, WorkspaceScope } from './components/shell';
import { Register, ResetPassword, SignIn, VerifyEmail } from './pages/auth';
import { BuildDetail, Builds } from './pages/builds';
import { Deploy } from './pages/deploy';
import { DeploymentFiles, Deployments } from './pages/deployments';
import { Home, NotFound } from './pages/home';
import { Invitations } from './pages/invitations';
import { Onboarding } from './pages/onboarding';
import { Previews } from './pages/previews';
import { ProjectLayout } from './pages/project-layout';
import { Projects } from './pages/projects';
import { ProjectSettings } from './pages/settings';

/*
 * The pages below are loaded when first visited, each in its own chunk: the first load
 * carries the shell and the pages a new user sees (projects, deploy); analytics (uPlot)
 * and the workspace's admin pages come later, keeping the initial JavaScript small.
 */
const Tokens = () => import('./pages/tokens').then((m) => ({ Component: m.Tokens }));
const Members = () => import('./pages/members').then((m) => ({ Component: m.Members }));
const Webhooks = () => import('./pages/webhooks').then((m) => ({ Component: m.Webhooks }));
const Billing = () => import('./pages/billing').then((m) => ({ Component: m.Billing }));
const WorkspaceLeads = () => import('./pages/leads').then((m) => ({ Component: m.WorkspaceLeads }));
const ProjectLeads = () => import('./pages/leads').then((m) => ({ Component: m.ProjectLeads }));
const Account = () => import('./pages/account').then((m) => ({ Component: m.Account }));
const Security = () => import('./pages/security').then((m) => ({ Component: m.Security }));
const ProjectForms = () => import('./pages/forms').then((m) => ({ Component: m.ProjectForms }));
const Analytics = () => import('./pages/analytics').then((m) => ({ Component: m.Analytics }));
const AuditLog = () => import('./pages/audit-log').then((m) => ({ Component: m.AuditLog }));
const SingleSignOn = () => import('./pages/sso').then((m) => ({ Component: m.SingleSignOn }));

/** Every dashboard path lives under /app (the server answers index.html for any of them). */
export const router = createBrowserRouter(
  [
    { path: 'sign-in', element: <SignIn /> },
    { path: 'register', element: <Register /> },
    { path: 'verify-email', element: <VerifyEmail /> },
    { path: 'reset-password', element: <ResetPassword /> },
    {
      element: <Shell />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <Home /> },
        { path: 'invitations', element: <Invitations /> },
        { path: 'account', lazy: Account },
        { path: 'security', lazy: Security },
        {
          path: 'w/:workspaceId',
          element: <WorkspaceScope />,
          children: [
            { index: true, element: <Navigate to="projects" replace /> },
            { path: 'projects', element: <Projects /> },
            { path: 'get-started', element: <Onboarding /> },
            { path: 'leads', lazy: WorkspaceLeads },
            { path: 'tokens', lazy: Tokens },
            { path: 'webhooks', lazy: Webhooks },
            { path: 'members', lazy: Members },
            { path: 'billing', lazy: Billing },
            { path: 'audit-log', lazy: AuditLog },
            { path: 'sso', lazy: SingleSignOn },
            {
              path: 'projects/:projectId',
              element: <ProjectLayout />,
              children: [
                { index: true, element: <Deployments /> },
                { path: 'deploy', element: <Deploy /> },
                { path: 'settings', element: <ProjectSettings /> },
                { path: 'deployments/:deploymentId', element: <DeploymentFiles /> },
                { path: 'builds', element: <Builds /> },
                { path: 'builds/:buildId', element: <BuildDetail /> },
                { path: 'previews', element: <Previews /> },
                { path: 'leads', lazy: ProjectLeads },
                { path: 'forms', lazy: ProjectForms },
                { path: 'analytics', lazy: Analytics },
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
