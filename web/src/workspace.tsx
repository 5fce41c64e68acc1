import { createContext, type ReactNode, useContext } from 'react';

/** The workspace the pages under /w/:workspaceId act in (sent as X-Workspace-Id by their queries). */
const WorkspaceContext = createContext<string | undefined>(undefined);

export function WorkspaceProvider({ workspaceId, children }: { workspaceId: string; children: ReactNode }) {
  return <WorkspaceContext.Provider value={workspaceId}>{children}</WorkspaceContext.Provider>;
}

/** The workspace of the page, or undefined outside one (invitations, the home page). */
export function useOptionalWorkspaceId(): string | undefined {
  return useContext(WorkspaceContext);
}

/** The workspace of the page; only pages under /w/:workspaceId call it. */
export function useWorkspaceId(): string {
  const workspaceId = useContext(WorkspaceContext);
  if (!workspaceId) throw new Error('useWorkspaceId() outside a workspace page');
  return workspaceId;
}
