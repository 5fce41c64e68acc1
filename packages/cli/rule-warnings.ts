import type { ResponseBody } from '../sdk';

/** One line of `_redirects`/`_headers` that deployed but never applies, as the deployment record gives it. */
export type RuleWarning = ResponseBody<'/projects/{projectId}/deployments/{deploymentId}', 'get'>['warnings'][number];

/** Only a deploy with a rules file at its root can have warnings: the others need no extra request. */
export function hasRuleFiles(files: readonly { path: string }[]): boolean {
  return files.some((f) => f.path === '_redirects' || f.path === '_headers');
}

/** `_redirects line 4: …`, the way a deploy's 400 names a line. */
export function formatRuleWarning(w: RuleWarning): string {
  return w.line > 0 ? `${w.file} line ${w.line}: ${w.message}` : `${w.file}: ${w.message}`;
}
