import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  CreditCard,
  Inbox,
  KeyRound,
  Layers,
  LockKeyhole,
  type LucideIcon,
  MailOpen,
  Menu as MenuIcon,
  ScrollText,
  ShieldCheck,
  UserRound,
  Users,
  Webhook,
} from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button as AriaButton, Dialog, DialogTrigger, Modal, ModalOverlay, RouterProvider as AriaRouterProvider } from 'react-aria-components';
import { Link, NavLink, Outlet, useHref, useLocation, useNavigate, useNavigation, useNavigationType, useParams } from 'react-router';

import { session, type Workspace } from '../api';
import { useMe, useResendVerification } from '../hooks/api/users';
import { useWorkspaces, workspaceQueries } from '../hooks/api/workspaces';
import { WorkspaceProvider } from '../workspace';
import { AccountMenu } from './design/account-menu';
import { PageBreadcrumbs } from './design/breadcrumbs';
import { Logo } from './design/logo';
import { ReauthenticateDialog } from './design/reauthenticate-dialog';
import { WorkspaceSwitcher } from './design/workspace-switcher';
import { ErrorNote, Loading, requiresSecondFactor, ToSecurityPage } from './ui';

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
  const location = useLocation();
  const queryClient = useQueryClient();
  const { workspaceId } = useParams();
  const workspaces = useWorkspaces();
  const [signingOut, setSigningOut] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  // A page loaded on first visit (its own chunk) shows that it is coming.
  const navigation = useNavigation();

  // The phone's menu closes once a link in it (or Back) has taken the user somewhere. A
  // redirect (a REPLACE, e.g. "/" to the first workspace just after signing in) leaves it
  // open: closing it then would pull the menu away from under a finger about to tap it.
  const navigationType = useNavigationType();
  useEffect(() => {
    if (navigationType !== 'REPLACE') setMenuOpen(false);
  }, [location.pathname, navigationType]);

  const signOut = () => {
    setSigningOut(true);
    void session.signOut().finally(() => {
      queryClient.clear();
      void navigate('/sign-in', { replace: true });
    });
  };

  const sidebar = <SidebarContent workspaces={workspaces.data?.data ?? []} workspaceId={workspaceId} />;
  return (
    // RAC's links and menu items (breadcrumbs, the account menu) navigate through the router, not a page load.
    <AriaRouterProvider navigate={(to) => void navigate(to)} useHref={useHref}>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <div className="layout">
        <aside className="sidebar">{sidebar}</aside>
        <div className="layout-main">
          <header className="top">
            <DialogTrigger isOpen={menuOpen} onOpenChange={setMenuOpen}>
              <AriaButton className="icon ghost menu-button" aria-label="Menu">
                <MenuIcon size={20} aria-hidden="true" />
              </AriaButton>
              <ModalOverlay className="drawer-overlay" isDismissable>
                <Modal className="drawer">
                  <Dialog className="drawer-dialog" aria-label="Menu">
                    {sidebar}
                  </Dialog>
                </Modal>
              </ModalOverlay>
            </DialogTrigger>
            <PageBreadcrumbs />
            <AccountMenu email={me.data?.email} signingOut={signingOut} onSignOut={signOut} />
          </header>
          {me.data && !me.data.emailVerified ? <UnverifiedBanner /> : null}
          <main id="content" tabIndex={-1}>
            <ErrorNote error={workspaces.error} />
            {navigation.state === 'loading' ? <Loading what="the page" /> : null}
            <Outlet />
          </main>
        </div>
      </div>
      <ReauthenticateDialog />
    </AriaRouterProvider>
  );
}

/** The sidebar: the logo, the workspace switcher, the workspace's sections and the person's own. */
function SidebarContent({ workspaces, workspaceId }: { workspaces: Workspace[]; workspaceId: string | undefined }) {
  const ws = `/w/${workspaceId}`;
  return (
    <>
      <Link className="brand" to="/" aria-label="statichost home">
        <Logo />
      </Link>
      {workspaces.length > 0 ? <WorkspaceSwitcher workspaces={workspaces} current={workspaceId} /> : null}
      <nav className="side-nav" aria-label="Main">
        {workspaceId ? (
          <ul>
            <NavItem to={`${ws}/projects`} Icon={Layers} label="Projects" />
            <NavItem to={`${ws}/leads`} Icon={Inbox} label="Leads" />
            <NavItem to={`${ws}/tokens`} Icon={KeyRound} label="API tokens" />
            <NavItem to={`${ws}/webhooks`} Icon={Webhook} label="Webhooks" />
            <NavItem to={`${ws}/members`} Icon={Users} label="Members" />
            <NavItem to={`${ws}/billing`} Icon={CreditCard} label="Billing" />
            <NavItem to={`${ws}/audit-log`} Icon={ScrollText} label="Audit log" />
            <NavItem to={`${ws}/sso`} Icon={LockKeyhole} label="Single sign-on" />
          </ul>
        ) : null}
        <p className="nav-heading" aria-hidden="true">
          You
        </p>
        <ul>
          <NavItem to="/invitations" Icon={MailOpen} label="Invitations" />
          <NavItem to="/account" Icon={UserRound} label="Account" />
          <NavItem to="/security" Icon={ShieldCheck} label="Security" />
        </ul>
      </nav>
    </>
  );
}

function NavItem({ to, Icon, label }: { to: string; Icon: LucideIcon; label: string }) {
  return (
    <li>
      <NavLink to={to}>
        <Icon size={18} aria-hidden="true" />
        {label}
      </NavLink>
    </li>
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
  if (requiresSecondFactor(workspace.error)) return <ToSecurityPage requiredBy={workspaceId} />;
  return (
    <WorkspaceProvider workspaceId={workspaceId}>
      <Outlet key={workspaceId} />
    </WorkspaceProvider>
  );
}
