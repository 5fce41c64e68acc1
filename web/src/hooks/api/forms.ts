import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import { api, call, errorOf, inWorkspace, type Schemas, transport } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { formKeys } from './query-keys';

export type Form = Schemas['FormDto'];
export type Submission = Schemas['SubmissionDto'];
export type SubmissionPage = Schemas['SubmissionsPageDto'];
/** The spam filter as the page offers it; `all` sends no filter. */
export type SpamFilter = 'false' | 'true' | 'all';

export interface SubmissionsQuery {
  search: string;
  spam: SpamFilter;
  page: number;
  limit: number;
}

/** The API's query of a page (or the export): `spam` and `search` only when they filter. */
function filters({ search, spam }: { search: string; spam: SpamFilter }): { search?: string; spam?: 'true' | 'false' } {
  return { ...(search ? { search } : {}), ...(spam !== 'all' ? { spam } : {}) };
}

export const formQueries = {
  list: (workspaceId: string, projectId: string) =>
    queryOptions({
      queryKey: formKeys.list([workspaceId, projectId]),
      queryFn: () => call(api.GET('/projects/{projectId}/forms', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) })),
    }),
  submissions: (workspaceId: string, projectId: string, formId: string, query: SubmissionsQuery) =>
    queryOptions({
      queryKey: formKeys.detail([workspaceId, projectId], formId, { ...query }),
      queryFn: (): Promise<SubmissionPage> =>
        call(
          api.GET('/projects/{projectId}/forms/{formId}/submissions', {
            params: { path: { projectId, formId }, query: { page: query.page, limit: query.limit, ...filters(query) } },
            headers: inWorkspace(workspaceId),
          }),
        ),
      // The previous page stays on screen while the next one loads (no flash of "loading").
      placeholderData: keepPreviousData,
    }),
};

export function useMarkSpam(workspaceId: string, projectId: string, options?: MutationOptions<unknown, { submission: Submission; spam: boolean }>) {
  return useInvalidatingMutation(
    ({ submission, spam }: { submission: Submission; spam: boolean }) =>
      call(
        api.PATCH('/projects/{projectId}/forms/{formId}/submissions/{submissionId}', {
          params: { path: { projectId, formId: submission.formId, submissionId: submission.id } },
          body: { spam },
          headers: inWorkspace(workspaceId),
        }),
      ),
    (qc) => qc.invalidateQueries({ queryKey: formKeys.all(workspaceId, projectId) }),
    options,
  );
}

export function useEraseSubmission(workspaceId: string, projectId: string, options?: MutationOptions<unknown, Submission>) {
  return useInvalidatingMutation(
    (submission: Submission) =>
      call(
        api.DELETE('/projects/{projectId}/forms/{formId}/submissions/{submissionId}', {
          params: { path: { projectId, formId: submission.formId, submissionId: submission.id } },
          headers: inWorkspace(workspaceId),
        }),
      ),
    (qc) => qc.invalidateQueries({ queryKey: formKeys.all(workspaceId, projectId) }),
    options,
  );
}

export function useEraseAllSubmissions(workspaceId: string, projectId: string, options?: MutationOptions<unknown, Form>) {
  return useInvalidatingMutation(
    (form: Form) =>
      call(
        api.DELETE('/projects/{projectId}/forms/{formId}/submissions', {
          params: { path: { projectId, formId: form.id } },
          headers: inWorkspace(workspaceId),
        }),
      ),
    (qc) => qc.invalidateQueries({ queryKey: formKeys.all(workspaceId, projectId) }),
    options,
  );
}

/** The CSV export of a form's submissions (with the session's credentials, so not a plain link). */
export async function fetchSubmissionsCsv(workspaceId: string, projectId: string, formId: string, query: { search: string; spam: SpamFilter }): Promise<Blob> {
  const url = new URL(`/projects/${encodeURIComponent(projectId)}/forms/${encodeURIComponent(formId)}/submissions/export`, window.location.origin);
  for (const [name, value] of Object.entries(filters(query))) url.searchParams.set(name, value);
  const response = await transport.authorizedFetch(new Request(url, { headers: inWorkspace(workspaceId) }));
  if (!response.ok) throw await errorOf(response);
  return response.blob();
}
