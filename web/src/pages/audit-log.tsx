import { useMutation, useQuery } from '@tanstack/react-query';
import { Download, ShieldCheck } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import { ButtonIcon, Empty, ErrorNote, Field, Loading, Pager, TableWrap } from '../components/ui';
import { type AuditEntry, type AuditFilters, auditQueries, fetchAuditCsv, useVerifyAuditLog } from '../hooks/api/audit';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

const PAGE = 50;

/** The day inputs as the API's bounds: `to` takes in the whole of its day. */
function bounds(from: string, to: string): Pick<AuditFilters, 'from' | 'to'> {
  return { from: from || undefined, to: to ? `${to}T23:59:59.999Z` : undefined };
}

/**
 * The workspace's audit log (issue 32), for owners and admins: who changed what, from
 * where, newest first; filters, pages, the CSV download and the hash chain's check.
 */
export function AuditLog() {
  const workspaceId = useWorkspaceId();
  const [draft, setDraft] = useState({ from: '', to: '', actor: '', action: '', target: '' });
  const [filters, setFilters] = useState<AuditFilters>({});
  const [page, setPage] = useState(1);
  const entries = useQuery(auditQueries.list(workspaceId, filters, page, PAGE));
  const verify = useVerifyAuditLog(workspaceId);
  const download = useMutation({ mutationFn: () => downloadCsv(workspaceId, filters) });

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters({ ...bounds(draft.from, draft.to), actor: draft.actor.trim(), action: draft.action.trim(), target: draft.target.trim() });
    setPage(1);
  };
  const set = (name: keyof typeof draft) => (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [name]: e.target.value });

  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">Every change made in this workspace, by whom, with which token, and from where.</p>
      <form className="row" onSubmit={apply} aria-label="Filter the audit log">
        <Field label="From" type="date" value={draft.from} onChange={set('from')} />
        <Field label="To" type="date" value={draft.to} onChange={set('to')} />
        <Field label="Action" value={draft.action} onChange={set('action')} hint="project.deleted, or project. for all of them" autoComplete="off" />
        <Field label="Actor id" value={draft.actor} onChange={set('actor')} hint="usr_… or tok_…" autoComplete="off" />
        <Field label="Target id" value={draft.target} onChange={set('target')} autoComplete="off" />
        <div className="field">
          <button type="submit">Apply filters</button>
        </div>
      </form>
      <div className="actions">
        <button type="button" disabled={download.isPending} onClick={() => download.mutate()}>
          <ButtonIcon icon={Download} />
          {download.isPending ? 'Preparing…' : 'Download CSV'}
        </button>
        <button type="button" disabled={verify.isPending} onClick={() => verify.mutate()}>
          <ButtonIcon icon={ShieldCheck} />
          {verify.isPending ? 'Checking…' : 'Verify the chain'}
        </button>
      </div>
      <ErrorNote error={download.error} />
      <ErrorNote error={verify.error} />
      {verify.data ? (
        <p className={verify.data.ok ? 'note' : 'note error'} role="status">
          {verify.data.ok
            ? `The chain is intact: ${verify.data.entries} entr${verify.data.entries === 1 ? 'y' : 'ies'} checked.`
            : `The chain is broken at entry ${verify.data.firstBroken?.seq ?? '?'} (${verify.data.firstBroken?.reason ?? 'unknown'}): the log was changed outside the service.`}{' '}
          {verify.data.headHash ? (
            <>
              Head hash: <code className="mono">{verify.data.headHash}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {entries.isPending ? <Loading what="the audit log" /> : null}
      <ErrorNote error={entries.error} workspaceId={workspaceId} />
      {entries.data && entries.data.meta.total === 0 ? (
        Object.values(filters).some(Boolean) ? (
          <Empty>No entries match these filters.</Empty>
        ) : (
          <Empty title="No entries yet">
            Who did what in this workspace (sign-ins, deploys, changes to members, tokens and settings) is recorded here as it happens, in a chain that shows
            any tampering.
          </Empty>
        )
      ) : null}
      {entries.data && entries.data.data.length > 0 ? (
        <TableWrap label="Audit log entries">
          <table aria-busy={entries.isFetching}>
            <caption className="muted">
              {entries.data.meta.total} entr{entries.data.meta.total === 1 ? 'y' : 'ies'}
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col" className="hide-narrow">
                  From
                </th>
                <th scope="col" className="hide-narrow">
                  Fields
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.data.data.map((e) => (
                <EntryRow key={e.id} entry={e} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {entries.data ? <Pager page={page} totalPages={entries.data.meta.totalPages} onPage={setPage} previous="Newer" next="Older" /> : null}
    </>
  );
}

function EntryRow({ entry: e }: { entry: AuditEntry }) {
  return (
    <tr>
      <td>{formatTime(e.at)}</td>
      <td>
        {e.actor.label} <span className="muted">({e.actor.type})</span>
      </td>
      <td className="mono">{e.action}</td>
      <td>{e.target ? (e.target.label ?? e.target.id ?? e.target.type) : ''}</td>
      <td className="hide-narrow">{[e.userAgent, e.ip].filter(Boolean).join(', ')}</td>
      <td className="hide-narrow">{e.changes.join(', ')}</td>
    </tr>
  );
}

async function downloadCsv(workspaceId: string, filters: AuditFilters): Promise<void> {
  const href = URL.createObjectURL(await fetchAuditCsv(workspaceId, filters));
  try {
    const a = document.createElement('a');
    a.href = href;
    a.download = `audit-log-${workspaceId}-${new Date().toISOString().slice(0, 10)}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // After the click the browser holds its own reference to the file.
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  }
}
