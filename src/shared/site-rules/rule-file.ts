/**
 * What `_redirects` and `_headers` share: reading the file as UTF-8 lines and
 * collecting problems, each naming its line.
 */

/** A problem in a rules file; `line` counts from 1 (0: the file as a whole). */
export interface RuleError {
  line: number;
  message: string;
}

/**
 * `warnings` (issue 34): lines that deploy but will never do what they say (a `Country=`
 * rule with no GeoIP database, a source shadowed by an earlier identical one). They go on
 * the deployment record; they never refuse a deploy.
 */
export type ParseResult<T> = { ok: true; rules: T; warnings: RuleError[] } | { ok: false; errors: RuleError[] };

/** Enough to fix a file in one go, short enough for an API answer. */
export const MAX_REPORTED_ERRORS = 50;

/** Far above what the rule limits allow (2,100 lines of 1,000 characters), so only junk hits it. */
export const MAX_RULE_FILE_BYTES = 4 * 1024 * 1024;

const CONTROL_CHAR = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

/** Collects errors; past MAX_REPORTED_ERRORS it only counts them. */
export class RuleErrors {
  private readonly list: RuleError[] = [];
  private dropped = 0;
  private readonly warned: RuleError[] = [];

  /** A line that deploys but never applies; capped like errors. */
  warn(line: number, message: string): void {
    if (this.warned.length < MAX_REPORTED_ERRORS) this.warned.push({ line, message });
  }

  add(line: number, message: string): void {
    if (this.list.length < MAX_REPORTED_ERRORS) this.list.push({ line, message });
    else this.dropped++;
  }

  get any(): boolean {
    return this.list.length > 0;
  }

  result<T>(rules: T): ParseResult<T> {
    if (!this.any) return { ok: true, rules, warnings: [...this.warned].sort((a, b) => a.line - b.line) };
    // In line order, whenever a problem was found (a block is only judged at its end).
    const errors = [...this.list].sort((a, b) => a.line - b.line);
    if (this.dropped > 0) {
      errors.push({ line: 0, message: `${this.dropped} more problem${this.dropped === 1 ? '' : 's'} not shown; fix the ones above first` });
    }
    return { ok: false, errors };
  }
}

/**
 * The file's lines (without "\n" or a trailing "\r"), or the error that stops
 * reading it: too large, or not UTF-8 (naming the first bad line).
 */
function readRuleLines(file: Uint8Array, fileName: string): { lines: string[] } | { error: RuleError } {
  if (file.byteLength > MAX_RULE_FILE_BYTES) {
    return { error: { line: 0, message: `${fileName} is ${file.byteLength} bytes; the limit is ${MAX_RULE_FILE_BYTES} bytes` } };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    return { error: { line: firstInvalidLine(file), message: `${fileName} is not valid UTF-8 (save it as UTF-8)` } };
  }
  return { lines: text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)) };
}

/** A line of a rules file that holds something: not blank, not a `#` comment. */
export interface RuleLine {
  /** Counts from 1. */
  line: number;
  text: string;
  trimmed: string;
}

/**
 * The lines of a rules file that hold something, or undefined when the file cannot be
 * read at all (too large, not UTF-8): that is then the one error in `errors`.
 */
export function ruleLines(file: Uint8Array, fileName: string, errors: RuleErrors): RuleLine[] | undefined {
  const read = readRuleLines(file, fileName);
  if ('error' in read) {
    errors.add(read.error.line, read.error.message);
    return undefined;
  }
  return read.lines.map((text, i) => ({ line: i + 1, text, trimmed: text.trim() })).filter(({ trimmed }) => trimmed !== '' && !trimmed.startsWith('#'));
}

/** 1-based number of the first line that does not decode on its own. */
function firstInvalidLine(file: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let line = 1; ; line++) {
    const end = file.indexOf(0x0a, start);
    try {
      decoder.decode(file.subarray(start, end === -1 ? file.byteLength : end));
    } catch {
      return line;
    }
    if (end === -1) return 0;
    start = end + 1;
  }
}

/** A line's problem before its content is looked at (length, control characters), or undefined. */
export function lineProblem(line: string, maxChars: number): string | undefined {
  // Code points, as a person counts characters; .length is an upper bound, so the count is rarely needed.
  if (line.length > maxChars) {
    const chars = Array.from(line).length;
    if (chars > maxChars) return `is ${chars} characters long; the limit is ${maxChars}`;
  }
  const control = CONTROL_CHAR.exec(line);
  if (control) return `contains a control character (U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  return undefined;
}

/** For messages: JSON-quoted, cut short. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
