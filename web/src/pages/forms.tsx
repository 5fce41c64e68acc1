import { useMutation, useQuery } from '@tanstack/react-query';
import { Download, Trash2, Upload } from 'lucide-react';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Field, Loading, Pager, SelectField, TableWrap, useDebounced } from '../components/ui';
import { submissionsCsvName } from '../format';
import {
  fetchSubmissionsCsv,
  type Form,
  formQueries,
  type SpamFilter,
  type Submission,
  useEraseAllSubmissions,
  useEraseSubmission,
  useMarkSpam,
} from '../hooks/api/forms';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

const PAGE = 25;

/** The project's forms, and the submissions of the one chosen (`?form=frm_…`, so a link opens it). */
export function ProjectForms() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const forms = useQuery(formQueries.list(workspaceId, project.id));
  const [params, setParams] = useSearchParams();
  const chosen = forms.data?.data.find((f) => f.id === params.get('form')) ?? forms.data?.data[0];

  return (
    <>
      <h2>Forms</h2>
      {forms.isPending ? <Loading what="forms" /> : null}
      <ErrorNote error={forms.error} />
      {forms.data && forms.data.data.length === 0 ? (
        <Empty
          title="No forms yet"
          action={
            <Link className="button" to={`/w/${workspaceId}/projects/${project.id}/deploy`}>
              <ButtonIcon icon={Upload} />
              Deploy the site again
            </Link>
          }
        >
          The site’s HTML forms collect their submissions here, with no server of your own. Mark a form of the site with{' '}
          <code>data-statichost-form="contact"</code> (or Netlify’s <code>netlify</code> and a <code>name</code>) and deploy: its submissions show here.
        </Empty>
      ) : null}
      {forms.data && forms.data.data.length > 0 ? (
        <TableWrap label="Forms">
          <table>
            <thead>
              <tr>
                <th scope="col">Form</th>
                <th scope="col">Submissions</th>
                <th scope="col">Spam</th>
                <th scope="col" className="hide-narrow">
                  Last submission
                </th>
              </tr>
            </thead>
            <tbody>
              {forms.data.data.map((f) => (
                <tr key={f.id} aria-current={f.id === chosen?.id ? 'true' : undefined}>
                  <td>
                    <button type="button" className="link" onClick={() => setParams({ form: f.id })} aria-pressed={f.id === chosen?.id}>
                      {f.name}
                    </button>
                    <br />
                    <small className="muted">{f.fields.join(', ') || 'no named fields'}</small>
                  </td>
                  <td>{f.submissionCount}</td>
                  <td>{f.spamCount}</td>
                  <td className="hide-narrow">{f.lastSubmissionAt ? formatTime(f.lastSubmissionAt) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {chosen ? <Submissions key={chosen.id} workspaceId={workspaceId} project={{ id: project.id, slug: project.slug }} form={chosen} /> : null}
    </>
  );
}

function Submissions({ workspaceId, project, form }: { workspaceId: string; project: { id: string; slug: string }; form: Form }) {
  const [search, setSearch] = useState('');
  const [spam, setSpam] = useState<SpamFilter>('false');
  const [page, setPage] = useState(1);
  // One request per pause in typing, not per key; a new search or filter starts at page 1.
  const query = useDebounced(search.trim(), 300);
  const [shown, setShown] = useState({ query, spam });
  if (shown.query !== query || shown.spam !== spam) {
    setShown({ query, spam });
    setPage(1);
  }
  const submissions = useQuery(formQueries.submissions(workspaceId, project.id, form.id, { search: query, spam, page, limit: PAGE }));
  const [erasing, setErasing] = useState<Submission | null>(null);
  const [erasingAll, setErasingAll] = useState<Form | null>(null);
  const erase = useEraseSubmission(workspaceId, project.id, { onSuccess: () => setErasing(null) });
  const eraseAll = useEraseAllSubmissions(workspaceId, project.id, { onSuccess: () => setErasingAll(null) });
  const mark = useMarkSpam(workspaceId, project.id);
  const download = useMutation({ mutationFn: () => downloadCsv(workspaceId, project, form, { search: query, spam }) });
  const total = submissions.data?.meta.total ?? 0;

  return (
    <section aria-labelledby="submissions-heading">
      <h3 id="submissions-heading">Submissions of “{form.name}”</h3>
      <div className="row">
        <Field
          label="Search submissions"
          type="search"
          autoComplete="off"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          hint="Any part of any field."
        />
        <SelectField label="Show" value={spam} onChange={(e) => setSpam(e.target.value as SpamFilter)}>
          <option value="false">Not spam</option>
          <option value="true">Spam</option>
          <option value="all">All</option>
        </SelectField>
        <div className="field">
          <button type="button" disabled={download.isPending} onClick={() => download.mutate()}>
            <ButtonIcon icon={Download} />
            {download.isPending ? 'Preparing…' : 'Download CSV'}
          </button>
        </div>
        <div className="field">
          <button type="button" className="danger" disabled={form.submissionCount + form.spamCount === 0} onClick={() => setErasingAll(form)}>
            <ButtonIcon icon={Trash2} />
            Delete all submissions
          </button>
        </div>
      </div>
      <ErrorNote error={download.error} />
      <ErrorNote error={mark.error} />
      {submissions.isPending ? <Loading what="submissions" /> : null}
      <ErrorNote error={submissions.error} />
      {submissions.data && total === 0 ? (
        <Empty>{query ? `No submission contains “${query}”.` : spam === 'true' ? 'No spam.' : 'No submissions yet.'}</Empty>
      ) : null}
      {submissions.data && submissions.data.data.length > 0 ? (
        <TableWrap label="Submissions">
          <table aria-busy={submissions.isFetching}>
            <caption className="muted">
              {total} submission{total === 1 ? '' : 's'}
              {query ? ` matching “${query}”` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Fields</th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {submissions.data.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    {formatTime(s.createdAt)}
                    {s.spam ? (
                      <>
                        <br />
                        <span className="badge offline">spam{s.spamReason && s.spamReason !== 'user' ? ` (${s.spamReason.replace(/_/g, ' ')})` : ''}</span>
                      </>
                    ) : null}
                  </td>
                  <td>
                    <dl className="fields">
                      {Object.entries(s.fields).map(([name, value]) => (
                        <div key={name}>
                          <dt>{name}</dt>
                          <dd>{value}</dd>
                        </div>
                      ))}
                    </dl>
                  </td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="small"
                        disabled={mark.isPending}
                        onClick={() => mark.mutate({ submission: s, spam: !s.spam })}
                        aria-label={`${s.spam ? 'Not spam' : 'Mark as spam'}: submission of ${formatTime(s.createdAt)}`}
                      >
                        {s.spam ? 'Not spam' : 'Spam'}
                      </button>
                      <button type="button" className="small" onClick={() => setErasing(s)} aria-label={`Delete the submission of ${formatTime(s.createdAt)}`}>
                        <ButtonIcon icon={Trash2} />
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {submissions.data ? <Pager page={page} totalPages={submissions.data.meta.totalPages} onPage={setPage} /> : null}
      <ConfirmMutation
        target={erasing}
        mutation={erase}
        variables={(s) => s}
        onClose={() => setErasing(null)}
        title="Delete this submission?"
        confirmLabel="Delete the submission"
        danger
      >
        <p>What the visitor sent is deleted for good (a GDPR erasure).</p>
      </ConfirmMutation>
      <ConfirmMutation
        target={erasingAll}
        mutation={eraseAll}
        variables={(f) => f}
        onClose={() => setErasingAll(null)}
        title={`Delete every submission of “${form.name}”?`}
        confirmLabel="Delete them all"
        typed={form.name}
        danger
      >
        <p>All {form.submissionCount + form.spamCount} submissions, spam included, are deleted for good. The form stays and takes new submissions.</p>
      </ConfirmMutation>
    </section>
  );
}

/**
 * The export needs the session's Authorization header, so it cannot be a plain link:
 * fetched, then handed to the browser as a file to save.
 */
async function downloadCsv(workspaceId: string, project: { id: string; slug: string }, form: Form, query: { search: string; spam: SpamFilter }): Promise<void> {
  const href = URL.createObjectURL(await fetchSubmissionsCsv(workspaceId, project.id, form.id, query));
  try {
    const a = document.createElement('a');
    a.href = href;
    a.download = submissionsCsvName(project.slug, form.name, new Date());
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // After the click the browser holds its own reference to the file.
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  }
}
