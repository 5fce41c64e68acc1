import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Breadcrumb, Breadcrumbs, Link } from 'react-aria-components';
import { type Params, type UIMatch, useMatches } from 'react-router';

import { projectQueries } from '../../hooks/api/projects';
import { workspaceQueries } from '../../hooks/api/workspaces';

export interface Crumb {
  label: ReactNode;
  /** Where the crumb leads; the route's own path when left out. */
  to?: string;
}

/** A route's `handle` in routes.tsx: the crumbs it adds to the header's trail. */
export interface CrumbHandle {
  crumbs: (params: Params) => Crumb[];
}

/** The handle of a route with one crumb of fixed text. */
export const crumb = (label: string): CrumbHandle => ({ crumbs: () => [{ label }] });

function WorkspaceName({ id }: { id: string }) {
  const workspace = useQuery(workspaceQueries.detail(id));
  return <>{workspace.data?.name ?? 'Workspace'}</>;
}

function ProjectName({ workspaceId, projectId }: { workspaceId: string; projectId: string }) {
  const project = useQuery(projectQueries.detail(workspaceId, projectId));
  return <>{project.data?.name ?? 'Project'}</>;
}

export const workspaceCrumb: CrumbHandle = {
  crumbs: (p) => [{ label: <WorkspaceName id={p.workspaceId!} />, to: `/w/${p.workspaceId}/projects` }],
};

/** A project sits under Projects, though its route is that list's sibling. */
export const projectCrumb: CrumbHandle = {
  crumbs: (p) => [{ label: 'Projects', to: `/w/${p.workspaceId}/projects` }, { label: <ProjectName workspaceId={p.workspaceId!} projectId={p.projectId!} /> }],
};

/** A build sits under its project's Builds, though its route is that list's sibling. */
export const buildCrumb: CrumbHandle = {
  crumbs: (p) => [{ label: 'Builds', to: `/w/${p.workspaceId}/projects/${p.projectId}/builds` }, { label: 'Build' }],
};

function isCrumbHandle(handle: unknown): handle is CrumbHandle {
  return typeof handle === 'object' && handle !== null && typeof (handle as CrumbHandle).crumbs === 'function';
}

/** Where the page sits (Workspace › Projects › site › Deployments), from the matched routes' handles. */
export function PageBreadcrumbs() {
  const matches = useMatches() as UIMatch<unknown, unknown>[];
  const crumbs = matches.flatMap((m) => (isCrumbHandle(m.handle) ? m.handle.crumbs(m.params).map((c) => ({ ...c, to: c.to ?? m.pathname })) : []));
  if (crumbs.length === 0) return null;
  return (
    <nav aria-label="Breadcrumbs" className="crumbs">
      <Breadcrumbs>
        {crumbs.map((c, i) => (
          // The route's path as the key: a project's crumb and its index page's differ by it.
          <Breadcrumb key={`${c.to}#${i}`}>
            <Link href={c.to}>{c.label}</Link>
          </Breadcrumb>
        ))}
      </Breadcrumbs>
    </nav>
  );
}
