import { createBrowserRouter, Navigate } from 'react-router';

import { buildCrumb, crumb, projectCrumb, workspaceCrumb } from './components/design/breadcrumbs';
import { RouteError } from './components/route-error';
import { Shell, WorkspaceScope } from './components/shell';
import { Register, ResetPassword, SignIn, VerifyEmail } from './pages/auth';
import { Deploy } from './pages/deploy';
import { DeploymentFiles, Deployments } from './pages/deployments';
import { Home, NotFound } from './pages/home';
import { Invitations } from './pages/invitations';
import { ProjectLayout } from './pages/project-layout';
import { Projects } from './pages/projects';

/*
 * The pages below are loaded when first visited, each in its own chunk: the first load
 * carries the shell and the pages a new user sees (projects, deploy); analytics (uPlot)
 * and the workspace's admin pages come later, keeping the initial JavaScript small.
 */
const Onboarding = () => import('./pages/onboarding').then((m) => ({ Component: m.Onboarding }));
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
// A project's build, preview and settings pages (the Git settings' forms) are the largest of its sections.
const Builds = () => import('./pages/builds').then((m) => ({ Component: m.Builds }));
const BuildDetail = () => import('./pages/builds').then((m) => ({ Component: m.BuildDetail }));
const Previews = () => import('./pages/previews').then((m) => ({ Component: m.Previews }));
const ProjectSettings = () => import('./pages/settings').then((m) => ({ Component: m.ProjectSettings }));
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
        { path: 'invitations', element: <Invitations />, handle: crumb('Invitations') },
        { path: 'account', lazy: Account, handle: crumb('Account') },
        { path: 'security', lazy: Security, handle: crumb('Security') },
        {
          path: 'w/:workspaceId',
          element: <WorkspaceScope />,
          handle: workspaceCrumb,
          children: [
            { index: true, element: <Navigate to="projects" replace /> },
            { path: 'projects', element: <Projects />, handle: crumb('Projects') },
            { path: 'get-started', lazy: Onboarding, handle: crumb('Get started') },
            { path: 'leads', lazy: WorkspaceLeads, handle: crumb('Leads') },
            { path: 'tokens', lazy: Tokens, handle: crumb('API tokens') },
            { path: 'webhooks', lazy: Webhooks, handle: crumb('Webhooks') },
            { path: 'members', lazy: Members, handle: crumb('Members') },
            { path: 'billing', lazy: Billing, handle: crumb('Billing') },
            { path: 'audit-log', lazy: AuditLog, handle: crumb('Audit log') },
            { path: 'sso', lazy: SingleSignOn, handle: crumb('Single sign-on') },
            {
              path: 'projects/:projectId',
              element: <ProjectLayout />,
              handle: projectCrumb,
              children: [
                { index: true, element: <Deployments />, handle: crumb('Deployments') },
                { path: 'deploy', element: <Deploy />, handle: crumb('Deploy') },
                { path: 'settings', lazy: ProjectSettings, handle: crumb('Settings') },
                { path: 'deployments/:deploymentId', element: <DeploymentFiles />, handle: crumb('Files') },
                { path: 'builds', lazy: Builds, handle: crumb('Builds') },
                { path: 'builds/:buildId', lazy: BuildDetail, handle: buildCrumb },
                { path: 'previews', lazy: Previews, handle: crumb('Previews') },
                { path: 'leads', lazy: ProjectLeads, handle: crumb('Leads') },
                { path: 'forms', lazy: ProjectForms, handle: crumb('Forms') },
                { path: 'analytics', lazy: Analytics, handle: crumb('Analytics') },
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
