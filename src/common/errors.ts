import { STATUS_CODES } from 'node:http';

import { HttpException } from '@nestjs/common';

/** The error body of every API failure. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: string;
  requestId?: string;
  [detail: string]: unknown;
}

/** The statuses an error answer can have. */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 408 | 409 | 413 | 415 | 422 | 429 | 500 | 502 | 503;

/**
 * A module's error codes, each with the status (or statuses) it is answered with.
 * Declared once per module (`<module>.errors.ts`) and gathered in src/error-codes.ts,
 * which the OpenAPI document and the SDK read.
 */
export type ErrorCatalog = Readonly<Record<string, ErrorStatus | readonly [ErrorStatus, ...ErrorStatus[]]>>;

/** The statuses one catalog entry allows. */
export type StatusesOf<E> = E extends readonly (infer S)[] ? S : E;
/** The codes of a catalog that are answered with status S. */
export type CodesWithStatus<T extends ErrorCatalog, S extends ErrorStatus> = { [C in keyof T & string]: S extends StatusesOf<T[C]> ? C : never }[keyof T &
  string];
type SingleStatusCodes<T extends ErrorCatalog> = { [C in keyof T & string]: T[C] extends ErrorStatus ? C : never }[keyof T & string];
type MultiStatusCodes<T extends ErrorCatalog> = Exclude<keyof T & string, SingleStatusCodes<T>>;

declare const declared: unique symbol;
/**
 * A code that some module declared. Only `declareErrors` makes one, so an ApiError
 * with a free-string code does not compile.
 */
export type DeclaredCode = string & { readonly [declared]: true };

/**
 * A domain error: services throw these, the exception filter turns them into the
 * error body. `details` are extra fields for the body (e.g. a quota's limit and usage).
 * Made by a module's factory (`projectsError('slug_taken', …)`) or the common helpers below.
 */
export class ApiError extends HttpException {
  readonly code: string;

  constructor(
    status: ErrorStatus,
    code: DeclaredCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message, status);
    this.code = code;
  }

  body(): ErrorBody {
    const status = this.getStatus();
    return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message: this.message, code: this.code, ...this.details };
  }
}

/** One module's declared codes and the factory its throw sites use. */
export interface ErrorModule<M extends string, T extends ErrorCatalog> {
  readonly module: M;
  readonly codes: T;
  /** The error for a code declared with one status. */
  <C extends SingleStatusCodes<T>>(code: C, message: string, details?: Record<string, unknown>): ApiError;
  /** The error for a code declared with several statuses: the throw site says which. */
  at<C extends MultiStatusCodes<T>>(status: StatusesOf<T[C]>, code: C, message: string, details?: Record<string, unknown>): ApiError;
}

/**
 * Declares a module's error codes (in the style of twenty's `*.exception.ts`: the codes
 * and a small factory). A throw site can only name a code its module's catalog holds.
 */
export function declareErrors<const M extends string, const T extends ErrorCatalog>(module: M, codes: T): ErrorModule<M, T> {
  const statusOf = (code: string): ErrorStatus => {
    const entry = codes[code] as ErrorStatus | readonly ErrorStatus[];
    return typeof entry === 'number' ? entry : entry[0];
  };
  const factory = (code: string, message: string, details?: Record<string, unknown>) => new ApiError(statusOf(code), code as DeclaredCode, message, details);
  const at = (status: ErrorStatus, code: string, message: string, details?: Record<string, unknown>) =>
    new ApiError(status, code as DeclaredCode, message, details);
  return Object.assign(factory, { module, codes, at }) as unknown as ErrorModule<M, T>;
}

/**
 * The codes any module may answer with: the generic ones, the body parser's and the
 * connection limits', and the fallbacks `defaultCode` gives a framework error.
 */
export const commonError = declareErrors('common', {
  validation_failed: 400,
  invalid_json: 400,
  body_too_complex: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable_entity: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  database_unavailable: 503,
  password_hashing_busy: 503,
  // A framework error whose 4xx status has no code above (e.g. 410); none is thrown today.
  error: 400,
});
export type CommonErrorCode = keyof typeof commonError.codes & string;
type Common<S extends ErrorStatus> = CodesWithStatus<typeof commonError.codes, S>;

const common = <S extends ErrorStatus>(status: S, code: Common<S>, message: string, details?: Record<string, unknown>) =>
  new ApiError(status, code as string as DeclaredCode, message, details);

export const badRequest = (message: string, code: Common<400> = 'validation_failed', details?: Record<string, unknown>) => common(400, code, message, details);
export const unauthorized = (message = 'Missing or invalid credentials') => common(401, 'unauthorized', message);
export const forbidden = (message: string) => common(403, 'forbidden', message);
export const notFound = (what: string, id?: string) => common(404, 'not_found', id ? `${what} ${id} not found` : `${what} not found`);
export const payloadTooLarge = (message: string, details?: Record<string, unknown>) => common(413, 'payload_too_large', message, details);
export const unsupportedMediaType = (message: string) => common(415, 'unsupported_media_type', message);

/** A 429 with Retry-After, the wait rounded up to whole seconds (at least one). */
export function tooManyAttempts(message: string, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const error = commonError('rate_limited', `${message}; retry in ${seconds} s`, { retryAfter: seconds });
  return Object.assign(error, { headers: { 'Retry-After': String(seconds) } });
}

/** The code used for a status when an error carries none of its own. */
export function defaultCode(status: number): CommonErrorCode {
  const codes: Partial<Record<number, CommonErrorCode>> = {
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
