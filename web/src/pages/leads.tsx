import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';

import { api, authorizedFetch, call, errorOf } from '../api';
import { ConfirmMutation, Empty, ErrorNote, Field, Loading, Pager, SelectField, TableWrap, useDebounced } from '../components/ui';
import { csvName } from '../format';
import { formatTime } from '../locale';
import { useProject } from './project-layout';

const PAGE = 25;
type Lead = { id: string; email: string; capturedAt: string; projectId: string; projectName?: string; projectSlug?: string };

/** Leads of every project of the workspace, or of one chosen in the filter. */
export function WorkspaceLeads() {
  const { workspaceId } = useParams() as { workspaceId: string };
  const [projectId, setProjectId] = useState('');
  const projects = useQuery({
    queryKey: ['projects', workspaceId, 'names'],
    queryFn: () => call(api.GET('/projects', { params: { query: { page: 1, limit: 100 } } })),
  });
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
  const { workspaceId } = useParams() as { workspaceId: string };
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
  const leads = useQuery({
    queryKey: ['leads', workspaceId, project?.id ?? null, query, page],
    queryFn: async (): Promise<{ data: Lead[]; meta: { total: number; totalPages: number } }> =>
      project && single
        ? call(
            api.GET('/projects/{projectId}/gate/leads', {
              params: { path: { projectId: project.id }, query: { page, limit: PAGE, ...(query ? { search: query } : {}) } },
            }),
          ).then((r) => ({
            ...r,
            data: r.data.map((l) => ({ ...l, projectId: project.id })),
          }))
        : call(
            api.GET('/projects/gate/leads', {
              params: { query: { page, limit: PAGE, ...(query ? { search: query } : {}), ...(project ? { projectId: project.id } : {}) } },
            }),
          ),
    // The previous page stays on screen while the next one loads (no flash of "loading").
    placeholderData: keepPreviousData,
  });
  const [erasing, setErasing] = useState<Lead | null>(null);
  const queryClient = useQueryClient();
  const erase = useMutation({
    mutationFn: (lead: Lead) =>
      call(api.DELETE('/projects/{projectId}/gate/leads/{leadId}', { params: { path: { projectId: lead.projectId, leadId: lead.id } } })),
    onSuccess: async () => {
      setErasing(null);
      await queryClient.invalidateQueries({ queryKey: ['leads', workspaceId] });
    },
  });
  const download = useMutation({ mutationFn: () => downloadCsv(project!, query) });

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
              {download.isPending ? 'Preparing…' : query ? 'Download these as CSV' : 'Download CSV'}
            </button>
          </div>
        ) : null}
      </div>
      <ErrorNote error={download.error} />
      {leads.isPending ? <Loading what="leads" /> : null}
      <ErrorNote error={leads.error} />
      {leads.data && leads.data.meta.total === 0 ? <Empty>{query ? `No lead’s email contains “${query}”.` : 'No leads yet.'}</Empty> : null}
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
                  <td className="mono">{l.email}</td>
                  {!single ? (
                    <td>
                      <Link to={`/w/${workspaceId}/projects/${l.projectId}/leads`}>{l.projectName ?? l.projectId}</Link>
                    </td>
                  ) : null}
                  <td className="hide-narrow">{formatTime(l.capturedAt)}</td>
                  <td>
                    <button type="button" className="small" onClick={() => setErasing(l)} aria-label={`Erase ${l.email}`}>
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
async function downloadCsv(project: { id: string; slug: string }, search: string): Promise<void> {
  const url = new URL(`/projects/${encodeURIComponent(project.id)}/gate/leads/export`, window.location.origin);
  if (search) url.searchParams.set('search', search);
  const response = await authorizedFetch(new Request(url));
  if (!response.ok) throw await errorOf(response);
  const href = URL.createObjectURL(await response.blob());
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
