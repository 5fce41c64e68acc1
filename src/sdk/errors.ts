/** The service's error body (see the OpenAPI document's error responses). */
export interface ApiErrorBody {
  statusCode: number;
  error?: string;
  message: string;
  code?: string;
  requestId?: string;
  [detail: string]: unknown;
}

/** A request the service answered with an error: its status, `code` and the service's own message. */
export class StatichostApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: ApiErrorBody;

  constructor(status: number, body: Partial<ApiErrorBody> | undefined, fallback: string) {
    const message = typeof body?.message === 'string' && body.message ? body.message : fallback;
    super(message);
    this.name = 'StatichostApiError';
    this.status = status;
    this.code = typeof body?.code === 'string' ? body.code : `http_${status}`;
    this.body = { ...body, statusCode: status, message };
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
