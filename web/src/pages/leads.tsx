import { useMutation, useQuery } from '@tanstack/react-query';
import { Download, Settings, Trash2 } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { LIST_PAGE, type ListParams, ListRange, ListSearch, ListToolbar, NoMatch, useListParams } from '../components/list';
import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Loading, Pager, SelectField, TableWrap } from '../components/ui';
import { csvName } from '../format';
import { fetchLeadsCsv, type Lead, leadQueries, useEraseLead } from '../hooks/api/leads';
import { projectQueries } from '../hooks/api/projects';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

/** A lead's address is at most 254 characters (RFC 5321), and so is the API's search. */
const MAX_EMAIL = 254;

/** Leads of every project of the workspace, or of one chosen in the filter (`?project=` in the address, with the search and page). */
export function WorkspaceLeads() {
  const workspaceId = useWorkspaceId();
  const [params] = useSearchParams();
  const list = useListParams(MAX_EMAIL);
  const projectId = params.get('project') ?? '';
  const projects = useQuery(projectQueries.names(workspaceId));
  const chosen = projects.data?.data.find((p) => p.id === projectId);
  // A project in the address waits for the names, so the table never shows every project's leads first.
  const ready = projectId === '' || projects.data !== undefined;
  return (
    <>
      <h1>Leads</h1>
      <p className="muted">Email addresses visitors left at the email gate of your projects.</p>
      <ErrorNote error={projects.error} />
      {ready ? (
        <LeadsTable
          workspaceId={workspaceId}
          list={list}
          project={chosen ? { id: chosen.id, slug: chosen.slug } : undefined}
          filter={
            <SelectField label="Project" value={chosen?.id ?? ''} onChange={(e) => list.update({ project: e.target.value })}>
              <option value="">Every project</option>
              {projects.data?.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </SelectField>
          }
        />
      ) : (
        <Loading what="leads" />
      )}
    </>
  );
}

/** The leads of the project open in the project tabs. */
export function ProjectLeads() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const list = useListParams(MAX_EMAIL);
  return (
    <>
      <h2>Leads</h2>
      {project.gate_type !== 'email' ? (
        <p className="note">
          The site is not behind the email gate, so it collects no new leads.{' '}
          <Link to={`/w/${workspaceId}/projects/${project.id}/settings`}>Change the gate</Link>.
        </p>
      ) : null}
      <LeadsTable workspaceId={workspaceId} list={list} project={{ id: project.id, slug: project.slug }} single />
    </>
  );
}

function LeadsTable({
  workspaceId,
  list,
  project,
  single,
  filter,
}: {
  workspaceId: string;
  list: ListParams;
  project?: { id: string; slug: string };
  single?: boolean;
  /** The workspace page's project filter, in the toolbar beside the search. */
  filter?: ReactNode;
}) {
  const search = list.search;
  const leads = useQuery(
    leadQueries.list(workspaceId, { projectId: project?.id, single: single ?? false, search: search ?? '', page: list.page, limit: LIST_PAGE }),
  );
  const [erasing, setErasing] = useState<Lead | null>(null);
  const erase = useEraseLead(workspaceId, { onSuccess: () => setErasing(null) });
  // The export takes the search on screen, so "Download these" is what the table lists (every page of it).
  const download = useMutation({ mutationFn: () => downloadCsv(workspaceId, project!, search ?? '') });
  const meta = leads.data?.meta;
  const filtered = search !== undefined || (!single && project !== undefined);

  return (
    <>
      <ListToolbar label="Leads">
        <ListSearch list={list} label="Search by email" placeholder="Any part of the address" maxLength={MAX_EMAIL} />
        {filter}
        {project ? (
          <div className="field">
            <button type="button" disabled={download.isPending} onClick={() => download.mutate()}>
              <ButtonIcon icon={Download} />
              {download.isPending ? 'Preparing…' : search ? 'Download these as CSV' : 'Download CSV'}
            </button>
          </div>
        ) : null}
      </ListToolbar>
      <ErrorNote error={download.error} />
      {leads.isPending ? <Loading what="leads" /> : null}
      <ErrorNote error={leads.error} />
      {meta && meta.total === 0 && filtered ? (
        <NoMatch search={search} noun="lead" onClear={() => list.update(single ? { q: '' } : { q: '', project: '' })} />
      ) : null}
      {meta && meta.total === 0 && !filtered ? (
        <Empty
          title="No leads yet"
          action={
            <Link className="button" to={project ? `/w/${workspaceId}/projects/${project.id}/settings` : `/w/${workspaceId}/projects`}>
              <ButtonIcon icon={Settings} />
              {project ? 'Set up the email gate' : 'Choose a project to gate'}
            </Link>
          }
        >
          A lead is the email address a visitor gives at a site’s email gate to see it. Put a site behind the email gate (in its settings) and the addresses
          collect here, encrypted.
        </Empty>
      ) : null}
      {leads.data && leads.data.data.length > 0 && meta ? (
        <TableWrap label="Leads">
          <table aria-busy={leads.isPlaceholderData}>
            <caption className="muted">
              <ListRange meta={meta} shown={leads.data.data.length} noun={['lead', 'leads']} search={search} pending={leads.isPlaceholderData} />
            </caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                {!single ? <th scope="col">Project</th> : null}
                <th scope="col" className="hide-narrow">
                  Captured
                </th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {leads.data.data.map((l) => (
                <tr key={l.id}>
                  <td>
                    <Truncate value={l.email} label="email" />
                  </td>
                  {!single ? (
                    <td>
                      <Link to={`/w/${workspaceId}/projects/${l.projectId}/leads`}>{l.projectName ?? l.projectId}</Link>
                    </td>
                  ) : null}
                  <td className="hide-narrow">{formatTime(l.capturedAt)}</td>
                  <td>
                    <button type="button" className="small" onClick={() => setErasing(l)} aria-label={`Erase ${l.email}`}>
                      <ButtonIcon icon={Trash2} />
                      Erase
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {meta ? (
        <Pager page={meta.page} totalPages={meta.totalPages} onPage={(page) => list.update({ page: String(page) }, true)} label="Pages of leads" />
      ) : null}
      <ConfirmMutation
        target={erasing}
        mutation={erase}
        variables={(l) => l}
        onClose={() => setErasing(null)}
        title={`Erase ${erasing?.email ?? ''}?`}
        confirmLabel="Erase the lead"
        danger
      >
        <p>The address is deleted for good (a GDPR erasure). If the visitor passes the gate again, they are captured again.</p>
      </ConfirmMutation>
    </>
  );
}

/**
 * The export needs the session's Authorization header, so it cannot be a plain link:
 * fetched, then handed to the browser as a file to save.
 */
async function downloadCsv(workspaceId: string, project: { id: string; slug: string }, search: string): Promise<void> {
  const href = URL.createObjectURL(await fetchLeadsCsv(workspaceId, project.id, search));
  try {
    const a = document.createElement('a');
    a.href = href;
    a.download = csvName(project.slug, new Date());
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // After the click the browser holds its own reference to the file.
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  }
}
