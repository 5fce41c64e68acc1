import { createHash } from 'node:crypto';

import { lookup } from 'mime-types';

/**
 * File contents as they arrive in a deploy request, and what they are served as.
 *
 * Base64 is decoded strictly, because Node's decoder silently skips characters
 * outside the alphabet and stops at the first "=": a corrupted upload would
 * otherwise be stored as a different file with no error. Accepted: the standard
 * alphabet (RFC 4648 §4: A-Z a-z 0-9 + /), with or without "=" padding, and ASCII
 * whitespace anywhere (ignored), since `base64` tools wrap lines at 76 characters.
 * Refused: the URL-safe alphabet ("-", "_"), misplaced or surplus padding, a
 * length that cannot be base64, and non-zero bits after the last byte (a
 * non-canonical encoding, found by re-encoding and comparing).
 */

export const ENCODINGS = ['utf8', 'base64'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export class InvalidContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidContentError';
  }
}

const WHITESPACE = /[\t\n\r ]/g;
const LONE_SURROGATE = /\p{Cs}/u;

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * The bytes of `files[index]`. `encoding` defaults to utf8 when it is absent
 * (undefined, or null as JSON clients often send for "not set").
 */
export function decodeContent(content: unknown, encoding: unknown, index: number): Buffer {
  const enc = encoding ?? 'utf8';
  if (!(ENCODINGS as readonly unknown[]).includes(enc)) {
    throw new InvalidContentError(`files[${index}].encoding must be "utf8" or "base64", got ${shown(encoding)}`);
  }
  if (typeof content !== 'string') {
    throw new InvalidContentError(`files[${index}].content must be a string, got ${shown(content)}`);
  }
  return enc === 'base64' ? decodeBase64(content, index) : decodeUtf8(content, index);
}

function decodeUtf8(content: string, index: number): Buffer {
  // Buffer.from would write U+FFFD for it: the stored file would differ from the one sent.
  const surrogate = LONE_SURROGATE.exec(content);
  if (surrogate) {
    throw new InvalidContentError(
      `files[${index}].content is not valid Unicode text (unpaired surrogate at character ${surrogate.index}); send binary files with encoding "base64"`,
    );
  }
  return Buffer.from(content, 'utf8');
}

function decodeBase64(content: string, index: number): Buffer {
  const fail = (why: string) => new InvalidContentError(`files[${index}].content is not valid base64: ${why}`);
  const bad = /[^A-Za-z0-9+/=\t\n\r ]/.exec(content);
  if (bad) {
    const hint = bad[0] === '-' || bad[0] === '_' ? ' (the URL-safe alphabet is not accepted: use "+" and "/")' : '';
    throw fail(`unexpected character ${JSON.stringify(bad[0])} at position ${bad.index}${hint}`);
  }
  const body = content.replace(WHITESPACE, '');
  const firstPad = body.indexOf('=');
  const data = firstPad === -1 ? body : body.slice(0, firstPad);
  const padding = body.length - data.length;
  if (padding > 0 && !/^={1,2}$/.test(body.slice(firstPad))) throw fail('"=" padding may only end the text, at most twice');
  if (data.length % 4 === 1) throw fail(`its length (${data.length} characters without padding) cannot be base64`);
  if (padding > 0 && (data.length + padding) % 4 !== 0) throw fail(`wrong amount of "=" padding for ${data.length} characters`);

  const bytes = Buffer.from(data, 'base64');
  if (bytes.toString('base64').replace(/=+$/, '') !== data) throw fail('the last character has bits set beyond the final byte');
  return bytes;
}

/**
 * The Content-Type a deployed file is served with. Text types say UTF-8, the only
 * encoding deploys produce for text, so browsers never have to guess.
 */
export function contentTypeFor(path: string): string {
  const type = lookup(path) || 'application/octet-stream';
  return isText(type) ? `${type}; charset=utf-8` : type;
}

// Text without a text/* type; "+json" and "+xml" types (SVG, web manifests, feeds) are matched by suffix.
const TEXT_TYPES = new Set(['application/javascript', 'application/ecmascript', 'application/json', 'application/xml']);

function isText(type: string): boolean {
  return type.startsWith('text/') || TEXT_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml');
}

export function sha256Hex(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}
