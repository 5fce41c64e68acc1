import { useQuery } from '@tanstack/react-query';
import { Archive, ArrowUpCircle, Upload } from 'lucide-react';
import { useState } from 'react';
import { Link, useParams } from 'react-router';

import { LIST_PAGE, ListFilter, ListRange, ListSearch, ListToolbar, NoMatch, useListParams } from '../components/list';
import { RuleWarnings } from '../components/rule-warnings';
import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Loading, Pager, TableWrap } from '../components/ui';
import { type DeploymentAction, type DeploymentListQuery, deploymentQueries, useDeploymentAction } from '../hooks/api/deployments';
import { formatBytes, formatNumber, formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

type Action = DeploymentAction;

type Status = NonNullable<DeploymentListQuery['status']>;
const STATUSES: { value: Status | ''; label: string }[] = [
  { value: '', label: 'Every status' },
  { value: 'live', label: 'Live' },
  { value: 'archived', label: 'Archived' },
  { value: 'expired', label: 'Expired' },
];
const STATUS_VALUES = STATUSES.flatMap((s) => (s.value === '' ? [] : [s.value]));

export function Deployments() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const params = useListParams();
  const status = params.pick('status', STATUS_VALUES);
  const query: DeploymentListQuery = {
    page: params.page,
    limit: LIST_PAGE,
    ...(params.search !== undefined ? { search: params.search } : {}),
    ...(status ? { status } : {}),
  };
  const list = useQuery(deploymentQueries.list(workspaceId, project.id, query));
  const [action, setAction] = useState<Action | null>(null);
  const run = useDeploymentAction(workspaceId, project.id, { onSuccess: () => setAction(null) });
  const base = `/w/${workspaceId}/projects/${project.id}`;
  const filtered = query.search !== undefined || query.status !== undefined;
  const meta = list.data?.meta;

  return (
    <>
      <h2>Deployments</h2>
      <ListToolbar label="Deployments">
        <ListSearch list={params} label="Search deployments" placeholder="Version or id" />
        <ListFilter list={params} param="status" label="Status" value={status} options={STATUSES} />
      </ListToolbar>
      {list.isPending ? <Loading what="deployments" /> : null}
      <ErrorNote error={list.error} />
      {meta && meta.total === 0 && !filtered ? (
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
      {meta && meta.total === 0 && filtered ? <NoMatch search={query.search} noun="deployment" onClear={() => params.update({ q: '', status: '' })} /> : null}
      {list.data && list.data.data.length > 0 && meta ? (
        <TableWrap label="Deployments">
          <table className="deployments" aria-busy={list.isPlaceholderData}>
            <caption className="muted">
              <ListRange
                meta={meta}
                shown={list.data.data.length}
                noun={['deployment', 'deployments']}
                search={query.search}
                pending={list.isPlaceholderData}
              />
            </caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col" className="hide-narrow">
                  Size
                </th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
                <th scope="col" className="hide-narrow">
                  Expires
                </th>
                <th scope="col">Preview</th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((d) => {
                const live = d.id === project.liveDeploymentId;
                return (
                  <tr key={d.id}>
                    <td>
                      {/* The status beside the version, not a column of its own: a phone's row keeps the preview and the actions in view. */}
                      <Link to={`${base}/deployments/${d.id}`}>v{d.version}</Link> <span className={`badge ${d.status}`}>{d.status}</span>
                      {d.warnings.length > 0 ? (
                        <>
                          {' '}
                          <span className="badge warn" title="Rules that deployed but will never apply: open the version to see them">
                            {d.warnings.length} warning{d.warnings.length === 1 ? '' : 's'}
                          </span>
                        </>
                      ) : null}
                    </td>
                    <td className="hide-narrow">
                      {formatBytes(d.size_bytes)} · {formatNumber(d.fileCount)} file{d.fileCount === 1 ? '' : 's'}
                    </td>
                    <td className="hide-narrow">{formatTime(d.createdAt)}</td>
                    <td className="hide-narrow">{d.expires_at ? formatTime(d.expires_at) : 'never'}</td>
                    <td>
                      {d.status === 'expired' ? (
                        // An expired version's address answers 410: nothing to open or copy.
                        <span className="muted">—</span>
                      ) : (
                        <Truncate value={d.previewUrl} href={d.previewUrl} label={`preview of v${d.version}`} />
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
      {meta ? (
        <Pager
          page={meta.page}
          totalPages={meta.totalPages}
          onPage={(page) => params.update({ page: String(page) }, true)}
          label="Pages of deployments"
          previous="Newer"
          next="Older"
        />
      ) : null}
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
