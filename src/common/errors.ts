import { HttpException, HttpStatus } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';

/** The error body of every API failure. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: string;
  requestId?: string;
  [detail: string]: unknown;
}

/**
 * A domain error: services throw these, the exception filter turns them into the
 * error body. `details` are extra fields for the body (e.g. a quota's limit and usage).
 */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message, status);
  }

  body(): ErrorBody {
    const status = this.getStatus();
    return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message: this.message, code: this.code, ...this.details };
  }
}

export const badRequest = (message: string, code = 'validation_failed', details?: Record<string, unknown>) =>
  new ApiError(HttpStatus.BAD_REQUEST, code, message, details);
export const unauthorized = (message = 'Missing or invalid credentials', code = 'unauthorized') =>
  new ApiError(HttpStatus.UNAUTHORIZED, code, message);
export const forbidden = (message: string, code = 'forbidden') => new ApiError(HttpStatus.FORBIDDEN, code, message);
export const notFound = (what: string, id?: string) =>
  new ApiError(HttpStatus.NOT_FOUND, 'not_found', id ? `${what} ${id} not found` : `${what} not found`);
export const conflict = (message: string, code = 'conflict', details?: Record<string, unknown>) =>
  new ApiError(HttpStatus.CONFLICT, code, message, details);
export const payloadTooLarge = (message: string, details?: Record<string, unknown>) =>
  new ApiError(HttpStatus.PAYLOAD_TOO_LARGE, 'payload_too_large', message, details);

/** The code used for a status when an error carries none of its own. */
export function defaultCode(status: number): string {
  const codes: Record<number, string> = {
    400: 'validation_failed',
    401: 'unauthorized',
    402: 'payment_required',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    409: 'conflict',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    422: 'unprocessable_entity',
    429: 'rate_limited',
    503: 'service_unavailable',
  };
  return codes[status] ?? (status >= 500 ? 'internal_error' : 'error');
}
