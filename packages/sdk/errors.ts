import type { components } from './generated/schema';

type Schemas = components['schemas'];

/** Every error code the service declares (the document's `ErrorCode`): `switch` on it exhaustively. */
export type ErrorCode = Schemas['ErrorCode'];

/** Each module's codes, by module: `ModuleErrorCodes['Billing']` is `'quota_exceeded' | 'payment_failed' | …`. */
export type ModuleErrorCodes = {
  [K in keyof Schemas as K extends `${infer M}ErrorCode` ? (M extends '' ? never : M) : never]: Schemas[K];
};

/** The code of an answer that carried none (a proxy's error page, say): `http_` and the status. */
export type HttpStatusCode = `http_${number}`;

/** The service's error body (see the OpenAPI document's error responses). */
export interface ApiErrorBody {
  statusCode: number;
  error?: string;
  message: string;
  code?: ErrorCode;
  requestId?: string;
  [detail: string]: unknown;
}

/** A request the service answered with an error: its status, `code` and the service's own message. */
export class StatichostApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | HttpStatusCode;
  readonly body: ApiErrorBody;

  /** `body` is what the service answered, unchecked: its `code` is any string. */
  constructor(status: number, body: (Partial<Omit<ApiErrorBody, 'code'>> & { code?: unknown }) | undefined, fallback: string) {
    const message = typeof body?.message === 'string' && body.message ? body.message : fallback;
    super(message);
    this.name = 'StatichostApiError';
    this.status = status;
    // A service newer than this SDK may answer a code it does not know yet; the type says what this one knows.
    this.code = typeof body?.code === 'string' ? (body.code as ErrorCode) : `http_${status}`;
    this.body = { ...body, statusCode: status, message } as ApiErrorBody;
  }
}

/** The service could not be reached at all (wrong URL, server down, DNS). */
export class StatichostConnectionError extends Error {
  constructor(
    readonly baseUrl: string,
    cause: unknown,
  ) {
    const detail = (cause as { cause?: { code?: string; message?: string } })?.cause;
    super(`Could not reach ${baseUrl}: ${detail?.code ?? detail?.message ?? (cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'StatichostConnectionError';
  }
}
