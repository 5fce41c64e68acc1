import { useMutation, useQuery } from '@tanstack/react-query';
import { Download, Settings, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';

import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Field, Loading, Pager, SelectField, TableWrap, useDebounced } from '../components/ui';
import { csvName } from '../format';
import { fetchLeadsCsv, type Lead, leadQueries, useEraseLead } from '../hooks/api/leads';
import { projectQueries } from '../hooks/api/projects';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

const PAGE = 25;

/** Leads of every project of the workspace, or of one chosen in the filter. */
export function WorkspaceLeads() {
  const workspaceId = useWorkspaceId();
  const [projectId, setProjectId] = useState('');
  const projects = useQuery(projectQueries.names(workspaceId));
  const chosen = projects.data?.data.find((p) => p.id === projectId);
  return (
    <>
      <h1>Leads</h1>
      <p className="muted">Email addresses visitors left at the email gate of your projects.</p>
      <ErrorNote error={projects.error} />
      <SelectField label="Project" value={projectId} onChange={(e) => setProjectId(e.target.value)}>
        <option value="">Every project</option>
        {projects.data?.data.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </SelectField>
      <LeadsTable key={projectId} workspaceId={workspaceId} project={chosen ? { id: chosen.id, slug: chosen.slug } : undefined} />
    </>
  );
}

/** The leads of the project open in the project tabs. */
export function ProjectLeads() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  return (
    <>
      <h2>Leads</h2>
      {project.gate_type !== 'email' ? (
        <p className="note">
          The site is not behind the email gate, so it collects no new leads.{' '}
          <Link to={`/w/${workspaceId}/projects/${project.id}/settings`}>Change the gate</Link>.
        </p>
      ) : null}
      <LeadsTable workspaceId={workspaceId} project={{ id: project.id, slug: project.slug }} single />
    </>
  );
}

function LeadsTable({ workspaceId, project, single }: { workspaceId: string; project?: { id: string; slug: string }; single?: boolean }) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  // One request per pause in typing, not per key; a new search starts at page 1.
  const query = useDebounced(search.trim(), 300);
  const [shownQuery, setShownQuery] = useState(query);
  if (shownQuery !== query) {
    setShownQuery(query);
    setPage(1);
  }
  const leads = useQuery(leadQueries.list(workspaceId, { projectId: project?.id, single: single ?? false, search: query, page, limit: PAGE }));
  const [erasing, setErasing] = useState<Lead | null>(null);
  const erase = useEraseLead(workspaceId, { onSuccess: () => setErasing(null) });
  const download = useMutation({ mutationFn: () => downloadCsv(workspaceId, project!, query) });

  return (
    <>
      <div className="row">
        <Field
          label="Search by email"
          type="search"
          autoComplete="off"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          hint="Any part of the address."
        />
        {project ? (
          <div className="field">
            <button type="button" disabled={download.isPending} onClick={() => download.mutate()}>
              <ButtonIcon icon={Download} />
              {download.isPending ? 'Preparing…' : query ? 'Download these as CSV' : 'Download CSV'}
            </button>
          </div>
        ) : null}
      </div>
      <ErrorNote error={download.error} />
      {leads.isPending ? <Loading what="leads" /> : null}
      <ErrorNote error={leads.error} />
      {leads.data && leads.data.meta.total === 0 ? (
        query ? (
          <Empty>No lead’s email contains “{query}”.</Empty>
        ) : (
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
        )
      ) : null}
      {leads.data && leads.data.data.length > 0 ? (
        <TableWrap label="Leads">
          <table aria-busy={leads.isFetching}>
            <caption className="muted">
              {leads.data.meta.total} lead{leads.data.meta.total === 1 ? '' : 's'}
              {query ? ` matching “${query}”` : ''}
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
      {leads.data ? <Pager page={page} totalPages={leads.data.meta.totalPages} onPage={setPage} /> : null}
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
