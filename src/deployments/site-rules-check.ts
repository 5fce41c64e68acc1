/**
 * Deploy-time check of a deployment's `_redirects` and `_headers`: parsed with
 * the same modules the site router compiles them with, plus redirect loops over
 * the deployment's own files, so a deploy either gets the rules its author wrote
 * or is refused before anything goes live.
 */
import { gatedHeaderProblems, type HeaderRules, parseHeaders } from '../shared/site-rules/headers';
import { parseRedirects, type RedirectRules } from '../shared/site-rules/redirects';
import { findRedirectLoops, RULE_FILES } from '../shared/site-rules/resolve';
import { MAX_RULE_FILE_BYTES, type ParseResult, type RuleError } from '../shared/site-rules/rule-file';
import type { DeploymentsErrorCode } from './deployments.errors';

export type RuleFileName = '_redirects' | '_headers';

/** A line that deployed but will never apply, as the deployment record shows it. */
export interface RuleWarning {
  file: RuleFileName;
  line: number;
  message: string;
}

/** What the deploy knows about the instance that changes what a rule can do. */
export interface RuleCheckOptions {
  /** A GeoIP database is configured (GEOIP_DATABASE): without one a `Country=` rule never matches, and deploys with a warning. */
  geoip: boolean;
}

/** The parse warnings of one file, named by file (none when it did not parse: those are errors). */
export function warningsOf(file: RuleFileName, parsed: ParseResult<unknown>): RuleWarning[] {
  if (!parsed.ok) return [];
  return parsed.warnings.map(({ line, message }) => ({ file, line, message }));
}

export class InvalidRuleFileError extends Error {
  constructor(
    readonly file: RuleFileName,
    readonly errors: RuleError[],
  ) {
    super(describeRuleErrors(file, errors));
    this.name = 'InvalidRuleFileError';
  }

  get code(): Extract<DeploymentsErrorCode, 'invalid_redirects' | 'invalid_headers'> {
    return this.file === '_redirects' ? 'invalid_redirects' : 'invalid_headers';
  }
}

/** Errors shown in the message; every one (up to MAX_REPORTED_ERRORS) is in the `errors` detail. */
const IN_MESSAGE = 5;

/** "_redirects line 3: source "x" must be a path starting with "/"; line 9: …" */
export function describeRuleErrors(file: RuleFileName, errors: RuleError[]): string {
  const shown = errors.slice(0, IN_MESSAGE).map((e) => {
    // readRuleLines names the file itself ("_redirects is not valid UTF-8").
    const message = e.message.startsWith(`${file} `) ? e.message.slice(file.length + 1) : e.message;
    return e.line > 0 ? `line ${e.line}: ${message}` : message;
  });
  const more = errors.length > IN_MESSAGE ? `; and ${errors.length - IN_MESSAGE} more (see errors)` : '';
  return `${file} ${shown.join('; ')}${more}. Nothing was deployed.`;
}

/** The root paths of a deployment that hold rules, by name. */
export function ruleFilesOf<T extends { path: string }>(files: readonly T[]): Partial<Record<RuleFileName, T>> {
  const found: Partial<Record<RuleFileName, T>> = {};
  for (const f of files) if (RULE_FILES.has(f.path)) found[f.path as RuleFileName] = f;
  return found;
}

/** Too large to read as rules: refused from its declared size, before any byte is fetched. */
export function oversizedRuleFile(file: RuleFileName, size: number): InvalidRuleFileError | undefined {
  if (size <= MAX_RULE_FILE_BYTES) return undefined;
  return new InvalidRuleFileError(file, [{ line: 0, message: `is ${size} bytes; the limit is ${MAX_RULE_FILE_BYTES} bytes` }]);
}

export interface CheckedRuleFiles {
  redirects?: RedirectRules;
  headers?: HeaderRules;
  /** Both files' warnings, `_redirects` first, each file's in line order. */
  warnings: RuleWarning[];
}

/**
 * Parses both files (bytes given, or absent) and checks redirects for loops over
 * `paths`, the deployment's file paths. Throws InvalidRuleFileError for the first
 * file with problems; lines that deploy but never apply come back as warnings.
 */
export function checkRuleFiles(bytes: { redirects?: Uint8Array; headers?: Uint8Array }, paths: readonly string[], options: RuleCheckOptions): CheckedRuleFiles {
  const out: CheckedRuleFiles = { warnings: [] };
  if (bytes.redirects) {
    const parsed = parseRedirects(bytes.redirects, { geoip: options.geoip });
    if (!parsed.ok) throw new InvalidRuleFileError('_redirects', parsed.errors);
    const files = new Set(paths.filter((p) => !RULE_FILES.has(p)));
    const loops = findRedirectLoops(parsed.rules, (p) => files.has(p));
    if (loops.length > 0) throw new InvalidRuleFileError('_redirects', loops);
    out.redirects = parsed.rules;
    out.warnings.push(...warningsOf('_redirects', parsed));
  }
  if (bytes.headers) {
    const parsed = parseHeaders(bytes.headers);
    if (!parsed.ok) throw new InvalidRuleFileError('_headers', parsed.errors);
    out.headers = parsed.rules;
    out.warnings.push(...warningsOf('_headers', parsed));
  }
  return out;
}

/** The problems `_headers` has on a gated site only (gatedHeaderProblems), as a deploy error; undefined when none. */
export function gatedRuleFileError(rules: HeaderRules): InvalidRuleFileError | undefined {
  const problems = gatedHeaderProblems(rules);
  return problems.length > 0 ? new InvalidRuleFileError('_headers', problems) : undefined;
}
