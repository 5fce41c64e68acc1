import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate, useNavigation, useParams } from 'react-router';

import { ApiError, session } from '../api';
import { useMe, useResendVerification } from '../hooks/api/users';
import { useWorkspaces, workspaceQueries } from '../hooks/api/workspaces';
import { WorkspaceProvider } from '../workspace';
import { ErrorNote, Loading } from './ui';

/** Where to come back to after signing in: only a dashboard path (never another site). */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

function signInPath(location: { pathname: string; search: string }): string {
  return `/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`;
}

/**
 * The signed-in part of the app. On load the session comes back from the refresh
 * cookie; without one (or when it ends later) the user goes to sign in, and returns here.
 */
export function Shell() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [state, setState] = useState<'checking' | 'in' | 'out'>('checking');

  useEffect(() => {
    let live = true;
    void session.refresh().then((token) => {
      if (!live) return;
      setState(token ? 'in' : 'out');
    });
    return () => {
      live = false;
    };
  }, []);

  useEffect(
    () =>
      session.onEnded(() => {
        queryClient.clear();
        void navigate(
          signInPath(
            window.location.pathname.startsWith('/app') ? { pathname: window.location.pathname.slice(4) || '/', search: window.location.search } : location,
          ),
          { replace: true },
        );
      }),
    [navigate, queryClient, location],
  );

  if (state === 'checking') return <Loading what="your session" />;
  if (state === 'out') return <NavigateToSignIn />;
  return <SignedIn />;
}

function NavigateToSignIn() {
  const navigate = useNavigate();
  const location = useLocation();
  useEffect(() => {
    void navigate(signInPath(location), { replace: true });
  }, [navigate, location]);
  return null;
}

function SignedIn() {
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { workspaceId } = useParams();
  const workspaces = useWorkspaces();
  const [signingOut, setSigningOut] = useState(false);
  // A page loaded on first visit (its own chunk) shows that it is coming.
  const navigation = useNavigation();

  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="top">
        <Link className="brand" to="/">
          statichost
        </Link>
        {workspaces.data && workspaces.data.data.length > 0 ? (
          <label>
            <span className="muted">Workspace </span>
            <select
              aria-label="Workspace"
              value={workspaceId ?? ''}
              onChange={(e) => {
                void navigate(`/w/${e.target.value}/projects`);
              }}
            >
              {!workspaceId ? <option value="">Choose…</option> : null}
              {workspaces.data.data.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name} ({w.role})
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <span className="muted hide-narrow">{me.data?.email}</span>
        <button
          type="button"
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            void session.signOut().finally(() => {
              queryClient.clear();
              void navigate('/sign-in', { replace: true });
            });
          }}
        >
          Sign out
        </button>
      </header>
      <nav className="main" aria-label="Main">
        {workspaceId ? (
          <>
            <NavLink to={`/w/${workspaceId}/projects`}>Projects</NavLink>
            <NavLink to={`/w/${workspaceId}/leads`}>Leads</NavLink>
            <NavLink to={`/w/${workspaceId}/tokens`}>API tokens</NavLink>
            <NavLink to={`/w/${workspaceId}/webhooks`}>Webhooks</NavLink>
            <NavLink to={`/w/${workspaceId}/members`}>Members</NavLink>
            <NavLink to={`/w/${workspaceId}/billing`}>Billing</NavLink>
            <NavLink to={`/w/${workspaceId}/audit-log`}>Audit log</NavLink>
            <NavLink to={`/w/${workspaceId}/sso`}>Single sign-on</NavLink>
          </>
        ) : null}
        <NavLink to="/invitations">Invitations</NavLink>
        <NavLink to="/account">Account</NavLink>
        <NavLink to="/security">Security</NavLink>
      </nav>
      {me.data && !me.data.emailVerified ? <UnverifiedBanner /> : null}
      <main id="content" tabIndex={-1}>
        <ErrorNote error={workspaces.error} />
        {navigation.state === 'loading' ? <Loading what="the page" /> : null}
        <Outlet />
      </main>
    </>
  );
}

function UnverifiedBanner() {
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const resend = useResendVerification();
  return (
    <div className="note banner" role="status">
      Your email address is not verified yet: invitations wait until it is.{' '}
      <button
        type="button"
        className="small"
        onClick={() => {
          setError(null);
          resend.mutateAsync().then((r) => setSent(r.message), setError);
        }}
      >
        Send the link again
      </button>
      {sent ? <span> {sent}</span> : null}
      <ErrorNote error={error} />
    </div>
  );
}

/** Pages under /w/:workspaceId act in that workspace (their queries send X-Workspace-Id). */
export function WorkspaceScope() {
  const { workspaceId } = useParams() as { workspaceId: string };
  const workspace = useQuery(workspaceQueries.detail(workspaceId));
  // The workspace requires a second factor this person lacks (issue 32): the Security page is where they set one up.
  if (workspace.error instanceof ApiError && workspace.error.code === 'two_factor_required') {
    return <Navigate to="/security" replace state={{ twoFactorRequiredBy: workspaceId }} />;
  }
  return (
    <WorkspaceProvider workspaceId={workspaceId}>
      <Outlet key={workspaceId} />
    </WorkspaceProvider>
  );
}
