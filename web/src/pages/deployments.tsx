import { useQuery } from '@tanstack/react-query';
import { Archive, ArrowUpCircle, Upload } from 'lucide-react';
import { useState } from 'react';
import { Link, useParams } from 'react-router';

import { RuleWarnings } from '../components/rule-warnings';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Loading, Pager, TableWrap } from '../components/ui';
import { type DeploymentAction, deploymentQueries, useDeploymentAction } from '../hooks/api/deployments';
import { formatBytes, formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

type Action = DeploymentAction;

export function Deployments() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const [page, setPage] = useState(1);
  const list = useQuery(deploymentQueries.list(workspaceId, project.id, page, 20));
  const [action, setAction] = useState<Action | null>(null);
  const run = useDeploymentAction(workspaceId, project.id, { onSuccess: () => setAction(null) });
  const base = `/w/${workspaceId}/projects/${project.id}`;

  return (
    <>
      <h2>Deployments</h2>
      {list.isPending ? <Loading what="deployments" /> : null}
      <ErrorNote error={list.error} />
      {list.data && list.data.meta.total === 0 ? (
        <Empty
          title="Nothing deployed yet"
          action={
            <Link className="button primary" to={`${base}/deploy`}>
              <ButtonIcon icon={Upload} />
              Deploy a folder
            </Link>
          }
        >
          Each upload of the site is a version here: the live one is served at the project’s address, and any older one can be made live again.
        </Empty>
      ) : null}
      {list.data && list.data.data.length > 0 ? (
        <TableWrap label="Deployments">
          <table>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col" className="hide-narrow">
                  Size
                </th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
                <th scope="col" className="hide-narrow">
                  Expires
                </th>
                <th scope="col">Links</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((d) => {
                const live = d.id === project.liveDeploymentId;
                return (
                  <tr key={d.id}>
                    <td>
                      <Link to={`${base}/deployments/${d.id}`}>v{d.version}</Link>
                      {d.warnings.length > 0 ? (
                        <>
                          {' '}
                          <span className="badge warn" title="Rules that deployed but will never apply: open the version to see them">
                            {d.warnings.length} warning{d.warnings.length === 1 ? '' : 's'}
                          </span>
                        </>
                      ) : null}
                    </td>
                    <td>
                      <span className={`badge ${d.status}`}>{d.status}</span>
                    </td>
                    <td className="hide-narrow">
                      {formatBytes(d.size_bytes)} · {d.fileCount} file{d.fileCount === 1 ? '' : 's'}
                    </td>
                    <td className="hide-narrow">{formatTime(d.createdAt)}</td>
                    <td className="hide-narrow">{d.expires_at ? formatTime(d.expires_at) : 'never'}</td>
                    <td>
                      {d.previewUrl ? (
                        <a href={d.previewUrl} target="_blank" rel="noreferrer">
                          Preview<span className="skip"> of v{d.version}</span>
                        </a>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      <div className="actions">
                        {!live && d.status !== 'expired' ? (
                          <button type="button" className="small" onClick={() => setAction({ kind: 'promote', deployment: d })}>
                            <ButtonIcon icon={ArrowUpCircle} />
                            Promote<span className="skip"> v{d.version}</span>
                          </button>
                        ) : null}
                        {d.status !== 'archived' && d.status !== 'expired' ? (
                          <button type="button" className="small" onClick={() => setAction({ kind: 'archive', deployment: d })}>
                            <ButtonIcon icon={Archive} />
                            Archive<span className="skip"> v{d.version}</span>
                          </button>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {list.data ? <Pager page={page} totalPages={list.data.meta.totalPages} onPage={setPage} previous="Newer" next="Older" /> : null}
      <ConfirmMutation
        target={action}
        mutation={run}
        variables={(a) => a}
        onClose={() => setAction(null)}
        title={action?.kind === 'promote' ? `Make v${action.deployment.version} live?` : `Archive v${action?.deployment.version ?? ''}?`}
        confirmLabel={action?.kind === 'promote' ? 'Promote' : 'Archive'}
        danger={action?.kind === 'archive'}
      >
        {action?.kind === 'promote' ? (
          <p>The site serves this version at once (a rollback, if it is older). Nothing is copied.</p>
        ) : action?.deployment.id === project.liveDeploymentId ? (
          <p>This is the live version: archiving it takes the site offline until another version is promoted.</p>
        ) : (
          <p>The version stays listed as archived and can be promoted again later.</p>
        )}
      </ConfirmMutation>
    </>
  );
}

export function DeploymentFiles() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const { deploymentId } = useParams() as { deploymentId: string };
  const detail = useQuery(deploymentQueries.detail(workspaceId, project.id, deploymentId));
  return (
    <>
      <p>
        <Link to={`/w/${workspaceId}/projects/${project.id}`}>← All deployments</Link>
      </p>
      {detail.isPending ? <Loading what="the deployment" /> : null}
      <ErrorNote error={detail.error} />
      {detail.data ? (
        <>
          <h2>
            Version {detail.data.version} <span className={`badge ${detail.data.status}`}>{detail.data.status}</span>
          </h2>
          <p className="muted">
            {formatBytes(detail.data.size_bytes)} in {detail.data.fileCount} files · created {formatTime(detail.data.createdAt)} · expires{' '}
            {detail.data.expires_at ? formatTime(detail.data.expires_at) : 'never'}
            {detail.data.previewUrl ? (
              <>
                {' · '}
                <a href={detail.data.previewUrl} target="_blank" rel="noreferrer">
                  preview
                </a>
              </>
            ) : null}
          </p>
          <RuleWarnings warnings={detail.data.warnings} />
          {detail.data.files.length === 0 ? (
            <Empty>No files.</Empty>
          ) : (
            <TableWrap label="Files">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Path</th>
                    <th scope="col">Size</th>
                    <th scope="col" className="hide-narrow">
                      Type
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {detail.data.files.map((f) => (
                    <tr key={f.path}>
                      <td className="mono">{f.path}</td>
                      <td>{formatBytes(f.size)}</td>
                      <td className="hide-narrow">{f.contentType}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      ) : null}
    </>
  );
}
