/**
 * Deploy paths: the names under which uploaded files are served.
 *
 * A path is only ever a key in the deployment's manifest (objects are stored under
 * their SHA-256, never under these names), but it is also what a request path is
 * matched against, so it is held to one canonical form: Unicode NFC, "/"-separated,
 * relative to the site root, with nothing that a URL, a shell or a file system could
 * read in two ways. The serving side (src/shared/site-rules/request-path.ts) produces the same form.
 *
 * Percent signs: a literal "%" is a legal file-name character ("100%.html") and is
 * kept as is; the file is then served at "/100%25.html", since the request path is
 * decoded exactly once. Only percent-encodings of ".", "/" and "\" (also
 * double-encoded ones, "%252e") are refused: a file named "%2e%2e" is almost
 * certainly an attempt to smuggle a traversal past some decoder that runs twice.
 */

/** Where the gate's own pages and forms live; no deployed file may take it over. */
export const RESERVED_PREFIX = '.statichost/';

/** UTF-8 bytes, after NFC; long enough for any real site, short enough to index. */
export const MAX_PATH_BYTES = 1024;

export class InvalidPathError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'InvalidPathError';
  }
}

// C0, DEL and C1: none of them belongs in a URL, and some end up in logs or headers.
const CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f]/;
// A lone surrogate cannot be encoded as UTF-8 (PostgreSQL would refuse the text).
const LONE_SURROGATE = /\p{Cs}/u;
// "%", any number of "25" (each one more round of encoding), then ".", "/" or "\".
const ENCODED_DOT_OR_SLASH = /%(?:25)*(?:2e|2f|5c)/i;
const DRIVE_PATH = /^[a-z]:/i;
const RESERVED_SEGMENT = RESERVED_PREFIX.slice(0, -1).toLowerCase();

type Checked = { ok: true; path: string } | { ok: false; problem: string };

/** Returns the canonical form, or the problem phrased to follow the quoted path. */
function check(raw: string): Checked {
  const fail = (problem: string): Checked => ({ ok: false, problem });
  if (raw.length === 0) return fail('is empty');
  if (LONE_SURROGATE.test(raw)) return fail('is not valid Unicode (it contains an unpaired surrogate)');

  // Every rule runs on the NFC form, so that what is returned has passed them all
  // (NFC maps some characters to others, e.g. U+037E to ";").
  const path = raw.normalize('NFC');
  const control = CONTROL_CHAR.exec(path);
  if (control) return fail(`contains a control character (${codePoint(control[0])})`);
  const bytes = Buffer.byteLength(path, 'utf8');
  if (bytes > MAX_PATH_BYTES) return fail(`is ${bytes} bytes long; the limit is ${MAX_PATH_BYTES} bytes (UTF-8)`);
  if (path.includes('\\')) return fail('contains a backslash; separate directories with "/"');
  if (path.startsWith('/')) return fail('is absolute; give it relative to the site root, e.g. "index.html"');
  if (DRIVE_PATH.test(path)) return fail('is a Windows drive path; give it relative to the site root');
  const encoded = ENCODED_DOT_OR_SLASH.exec(path);
  if (encoded) return fail(`contains a percent-encoded dot, slash or backslash ("${encoded[0]}")`);

  const segments = path.split('/');
  if (segments[segments.length - 1] === '') return fail('ends with "/"; name a file, e.g. "dir/index.html"');
  if (segments.includes('')) return fail('has an empty segment ("//")');
  if (segments.includes('..')) return fail('has a ".." segment');
  if (segments.includes('.')) return fail('has a "." segment');
  if (segments[0].toLowerCase() === RESERVED_SEGMENT) return fail(`is under "${RESERVED_PREFIX}", which is reserved`);
  return { ok: true, path };
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** JSON-quoted (so control characters show as escapes), and cut short for error messages. */
function quote(value: string): string {
  const shown = value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return JSON.stringify(shown);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** The canonical form of one deploy path, or an InvalidPathError saying what is wrong. */
export function normaliseDeployPath(raw: unknown): string {
  if (typeof raw !== 'string') throw new InvalidPathError(`path must be a string, got ${describeType(raw)}`);
  const result = check(raw);
  if (!result.ok) throw new InvalidPathError(`path ${quote(raw)} ${result.problem}`);
  return result.path;
}

/**
 * Normalises a deployment's paths, in order. The first bad entry (or the first
 * duplicate after normalisation) throws, naming it as `files[<i>].path`.
 */
export function normaliseDeployPaths(paths: unknown[]): string[] {
  const firstIndex = new Map<string, number>();
  return paths.map((raw, i) => {
    const field = `files[${i}].path`;
    if (typeof raw !== 'string') throw new InvalidPathError(`${field} must be a string, got ${describeType(raw)}`);
    const result = check(raw);
    if (!result.ok) throw new InvalidPathError(`${field} ${quote(raw)} ${result.problem}`);
    const earlier = firstIndex.get(result.path);
    if (earlier !== undefined) {
      const how = result.path === raw ? '' : ` (both are ${quote(result.path)} after normalisation)`;
      throw new InvalidPathError(`${field} ${quote(raw)} duplicates files[${earlier}].path${how}`);
    }
    firstIndex.set(result.path, i);
    return result.path;
  });
}
