import { STATUS_CODES } from 'node:http';

import { HttpException } from '@nestjs/common';

import { formatBytes } from '../../packages/shared/format-bytes';
import { isDatabaseUnavailable } from './db-errors';
import { ApiError, type CommonErrorCode, defaultCode, type ErrorBody } from './errors';

interface BodyParserError {
  type: string;
  status: number;
  limit?: number;
  length?: number;
  message: string;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return typeof err === 'object' && err !== null && typeof (err as BodyParserError).type === 'string' && typeof (err as BodyParserError).status === 'number';
}

function body(status: number, message: string, code: CommonErrorCode = defaultCode(status), extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, code, ...extra };
}

/**
 * Maps anything thrown while handling a request to the wire error body.
 * `internal` is true when the error is a bug (logged with its stack, never shown).
 */
export function toErrorBody(err: unknown): { body: ErrorBody; internal: boolean; headers?: Record<string, string> } {
  // Nest wraps the body parser's errors in an HttpException; its cause says what really happened.
  const cause = err instanceof HttpException ? err.cause : undefined;
  if (isBodyParserError(cause)) err = cause;
  if (err instanceof ApiError) return { body: err.body(), internal: false };
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const response = err.getResponse();
    let message = err.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = (response as { message: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    return { body: body(status, message), internal: status >= 500 };
  }
  if (isBodyParserError(err) && err.status >= 400 && err.status < 500) {
    switch (err.type) {
      case 'entity.too.large':
        return {
          body: body(
            413,
            `Request body is ${err.length !== undefined ? formatBytes(err.length) : 'too large'}; the limit is ${formatBytes(err.limit ?? 0)}`,
            'payload_too_large',
            { limit: err.limit },
          ),
          internal: false,
        };
      case 'entity.parse.failed':
        return { body: body(400, `Request body is not valid JSON: ${err.message}`, 'invalid_json'), internal: false };
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return { body: body(415, err.message), internal: false };
      default:
        return { body: body(err.status, err.message), internal: false };
    }
  }
  if (isDatabaseUnavailable(err)) {
    // Not a bug: the database is down or restarting (the embedded one restarts itself).
    return {
      body: body(503, 'The database is unavailable; retry shortly', 'database_unavailable'),
      internal: false,
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  return { body: body(500, 'Internal server error', 'internal_error'), internal: true };
}

/** Retry-After of a `database_unavailable` 503: about the embedded server's first restart and crash recovery. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
