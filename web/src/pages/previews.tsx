import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import type { Preview } from '../api';
import { shortSha } from '../builds';
import { Empty, ErrorNote, Loading, Pager, TableWrap } from '../components/ui';
import { previewQueries } from '../hooks/api/previews';
import { formatAgo, formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

/** What a preview follows: its branch, or the pull request with its head branch. */
function PreviewName({ preview }: { preview: Preview }) {
  if (preview.kind === 'pull_request') {
    return (
      <>
        Pull request #{preview.pullRequest} {preview.branch ? <span className="cell-note mono">{preview.branch}</span> : null}
      </>
    );
  }
  return <span className="mono">{preview.branch ?? preview.alias}</span>;
}

/**
 * The project's preview addresses: one per branch and per open pull request, each
 * serving the newest ready build of it. The webhook makes them (a push, a pull request).
 */
export function Previews() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const [page, setPage] = useState(1);
  const list = useQuery(previewQueries.list(workspaceId, project.id, page, 20));
  const base = `/w/${workspaceId}/projects/${project.id}`;

  return (
    <>
      <h2>Previews</h2>
      <p className="muted">Each branch and each open pull request has its own address, which always serves its newest ready build.</p>
      {list.isPending ? <Loading what="previews" /> : null}
      <ErrorNote error={list.error} />
      {list.data && list.data.meta.total === 0 ? (
        <Empty title="No previews yet">
          Once the repository’s webhook is set (<Link to={`${base}/settings#webhook`}>Webhook settings</Link>), pushing a branch other than the production
          branch or opening a pull request builds it and gives it a preview address here.
        </Empty>
      ) : null}
      {list.data && list.data.data.length > 0 ? (
        <TableWrap label="Previews">
          <table>
            <thead>
              <tr>
                <th scope="col">Branch or pull request</th>
                <th scope="col">Address</th>
                <th scope="col">Commit</th>
                <th scope="col">Build</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((p) => (
                <tr key={p.alias}>
                  <td>
                    <PreviewName preview={p} />
                  </td>
                  <td>
                    <a href={p.url} target="_blank" rel="noreferrer" className="mono break">
                      {p.url}
                    </a>
                  </td>
                  <td className="mono">{shortSha(p.commitSha)}</td>
                  <td>
                    {p.buildId ? (
                      <Link to={`${base}/builds/${p.buildId}`}>
                        Build<span className="skip"> of {p.kind === 'pull_request' ? `pull request #${p.pullRequest}` : (p.branch ?? p.alias)}</span>
                      </Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    <time dateTime={p.updatedAt} title={formatTime(p.updatedAt)}>
                      {formatAgo(p.updatedAt)}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {list.data ? <Pager page={page} totalPages={list.data.meta.totalPages} onPage={setPage} previous="Newer" next="Older" /> : null}
    </>
  );
}
