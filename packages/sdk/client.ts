import { Readable, Transform } from 'node:stream';

import createClient, { type Client } from 'openapi-fetch';

import { type ApiErrorBody, StatichostApiError, StatichostConnectionError } from './errors';
import type { paths } from './generated/schema';

export type StatichostApi = Client<paths>;

/** The JSON body of an operation's response with `status` (generated from the OpenAPI document). */
export type ResponseBody<Path extends keyof paths, Method extends keyof paths[Path], Status extends number = 200> = paths[Path][Method] extends {
  responses: infer R;
}
  ? R extends Record<Status, { content: { 'application/json': infer B } }>
    ? B
    : unknown
  : never;

export type BlobUploadResult = ResponseBody<'/v1/blobs/{sha256}', 'put', 201>;

export interface StatichostClientOptions {
  /** The API's address, e.g. https://api.example.com (no trailing path). */
  baseUrl: string;
  /** An `sk_live_` API token (or a dashboard JWT, for the routes that take one); none for the public routes (register, login). */
  token?: string;
  /** Replaces globalThis.fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Sent as User-Agent. */
  userAgent?: string;
}

async function errorFrom(response: Response, method: string, path: string): Promise<StatichostApiError> {
  const text = await response.text().catch(() => '');
  let body: Partial<ApiErrorBody> | undefined;
  try {
    body = text ? (JSON.parse(text) as Partial<ApiErrorBody>) : undefined;
  } catch {
    body = undefined;
  }
  return new StatichostApiError(
    response.status,
    body,
    `${method} ${path} failed with HTTP ${response.status}${text && !body ? `: ${text.slice(0, 200)}` : ''}`,
  );
}

/**
 * A typed client of the statichost API. `api` is an openapi-fetch client whose
 * paths, parameters and bodies come from the service's own OpenAPI document
 * (packages/sdk/generated/schema.ts, generated); `call` unwraps its answer or throws
 * StatichostApiError with the service's message.
 *
 * ```ts
 * const sh = new StatichostClient({ baseUrl, token: process.env.STATICHOST_TOKEN! });
 * const me = await sh.call(sh.api.GET('/v1/me'));
 * ```
 */
export class StatichostClient {
  readonly api: StatichostApi;
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly userAgent: string;

  constructor(options: StatichostClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.userAgent = options.userAgent ?? 'statichost-sdk';
    const fetchImpl = this.fetchImpl;
    const baseUrl = this.baseUrl;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}), 'User-Agent': this.userAgent },
      fetch: async (request: Request) => {
        try {
          return await fetchImpl(request);
        } catch (err) {
          throw new StatichostConnectionError(baseUrl, err);
        }
      },
    });
  }

  /** The data of an openapi-fetch answer, or a StatichostApiError carrying the service's message. */
  async call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await pending;
    if (!response.ok || error !== undefined) {
      const body = (typeof error === 'object' && error !== null ? error : undefined) as Partial<ApiErrorBody> | undefined;
      const url = new URL(response.url || this.baseUrl);
      throw new StatichostApiError(response.status, body, `${url.pathname} failed with HTTP ${response.status}`);
    }
    return data as T;
  }

  /**
   * PUT /v1/blobs/:sha256: uploads one file's bytes, streamed. `created` is false
   * when the workspace already had the blob (the service did not read the body).
   * `onBytes` is called as bytes leave, for progress bars.
   */
  async uploadBlob(
    sha256: string,
    source: Buffer | (() => Readable),
    size: number,
    onBytes?: (n: number) => void,
  ): Promise<BlobUploadResult & { created: boolean }> {
    const path = `/v1/blobs/${sha256}`;
    let body: Buffer | ReadableStream;
    if (Buffer.isBuffer(source)) {
      body = source;
    } else {
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          onBytes?.(chunk.length);
          done(null, chunk);
        },
      });
      body = Readable.toWeb(source().pipe(counter)) as ReadableStream;
    }
    let response: Response;
    try {
      response = await this.fetchImpl(this.baseUrl + path, {
        method: 'PUT',
        headers: {
          Authorization: `Bearer ${this.token}`,
          'User-Agent': this.userAgent,
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(size),
        },
        body,
        duplex: 'half',
      } as RequestInit);
    } catch (err) {
      throw new StatichostConnectionError(this.baseUrl, err);
    }
    if (!response.ok) throw await errorFrom(response, 'PUT', path);
    if (Buffer.isBuffer(source)) onBytes?.(size);
    return { ...((await response.json()) as BlobUploadResult), created: response.status === 201 };
  }
}
