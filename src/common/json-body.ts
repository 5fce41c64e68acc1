import type { NextFunction, Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';

import { formatBytes } from '../../packages/shared/format-bytes';
import { type ApiError, badRequest, payloadTooLarge, unsupportedMediaType } from './errors';
import { checkJsonShape, type JsonShapeLimits } from './json-shape';

export interface JsonBodyOptions {
  /** Largest body read for a caller with a valid credential. */
  limit: number;
  /** Largest body read before the caller is known: larger ones need a valid credential first. */
  anonymousLimit: number;
  shape: JsonShapeLimits;
  /**
   * Checks the request's bearer credential: true when valid, false when there is
   * none; throws the usual 401 when one is presented but does not work.
   */
  authenticate(req: Request): Promise<boolean>;
}

/**
 * The JSON body parser (in place of body-parser's, which reads a refused body to its
 * end before answering: a client declaring 5 GB and sending slowly got no answer for
 * as long as it sent). Here:
 *
 * - a declared length over the limit is refused before a byte is read, and a chunked
 *   body is cut off as soon as it passes the limit; either way the connection is
 *   closed after the 413 (the exception filter adds `Connection: close` whenever the
 *   request body was not read to its end);
 * - a body over `anonymousLimit` (16 KB: register, login and refresh fit) is only read
 *   for a valid credential, so nobody can make the server read and parse 50 MB without
 *   one; the guard still checks the route's rules afterwards;
 * - a parsed body outside the shape limits (depth, keys) is a 400 before validation.
 *
 * Only UTF-8 is read (RFC 8259 §8.1); compressed bodies are refused (415) rather than
 * inflated, since a small compressed body may inflate past every limit.
 */
export function jsonBodyParser(options: JsonBodyOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('application/json')) return next();
    readJson(req, options).then(
      (body) => {
        req.body = body;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

async function readJson(req: Request, options: JsonBodyOptions): Promise<unknown> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') throw unsupported(`Content-Encoding ${encoding} is not supported for JSON bodies; send them uncompressed`);
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw unsupported(`JSON bodies must be UTF-8, not ${charset}`);

  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && declared > options.limit) throw tooLarge(declared, options.limit);
  let limit = options.limit;
  if (limit > options.anonymousLimit && (declared === undefined || declared > options.anonymousLimit) && !(await options.authenticate(req))) {
    limit = options.anonymousLimit;
    if (declared !== undefined && declared > limit) throw tooLarge(declared, limit, true);
  }

  let text: string;
  try {
    text = await getRawBody(req, { length: declared, limit, encoding: 'utf-8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw tooLarge(undefined, limit, limit < options.limit);
    throw err;
  }
  // As body-parser did: an empty body is an empty object, and only objects and arrays are accepted.
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw invalidJson('the body must be a JSON object or array');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidJson((err as Error).message);
  }
  const problem = checkJsonShape(value, options.shape);
  if (problem) throw badRequest(`Request body is too complex to accept: ${problem}`, 'body_too_complex', { limits: options.shape });
  return value;
}

/** `anonymous`: the limit was the one for callers without a credential. */
function tooLarge(size: number | undefined, limit: number, anonymous = false): ApiError {
  const theLimit = anonymous
    ? `the limit without a credential is ${formatBytes(limit)}; larger bodies need a valid bearer credential`
    : `the limit is ${formatBytes(limit)}`;
  const message = size === undefined ? `Request body is too large: ${theLimit}` : `Request body is ${formatBytes(size)}; ${theLimit}`;
  return payloadTooLarge(message, { limit, ...(size === undefined ? {} : { size }) });
}

const unsupported = (message: string) => unsupportedMediaType(message);
const invalidJson = (why: string) => badRequest(`Request body is not valid JSON: ${why}`, 'invalid_json');
