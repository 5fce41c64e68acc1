import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { basename, join } from 'node:path';

/**
 * Records every JSON answer of the API routes a test app gives (method, route
 * template, status, body), so test/global-teardown.ts can check each against the
 * OpenAPI document (test/helpers/openapi-responses.ts): the e2e suite is the sample
 * of real responses. Answers outside a route (site hosts, the body parser's errors
 * before routing, /docs) have no route template and are not recorded.
 */
export const RESPONSE_LOG_DIR_ENV = 'STATICHOST_RESPONSE_LOG_DIR';

export interface RecordedResponse {
  method: string;
  /** Express route template, e.g. /projects/:projectId */
  route: string;
  status: number;
  body: unknown;
  /** The test file that made the request, to say where a mismatch came from. */
  test: string;
}

/**
 * Routes deliberately outside the document: /docs serves the document itself, and the
 * infrastructure controllers (@ApiExcludeController) are not part of the public API.
 * Any other route missing from the document is a mismatch.
 */
const OUTSIDE_DOCUMENT = ['/docs', '/internal/', '/metrics'];

/** Bodies larger than this are not recorded (no route of the API answers that much JSON). */
const MAX_BODY = 1024 * 1024;

export interface ResponseRecorder {
  /** Writes what was recorded to the log directory. */
  flush(): void;
}

export function recordResponses(server: Server): ResponseRecorder {
  const dir = process.env[RESPONSE_LOG_DIR_ENV];
  const records: RecordedResponse[] = [];
  if (!dir) return { flush: () => undefined };
  const testPath = (globalThis as unknown as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath ?? 'unknown';
  const test = basename(testPath);

  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > MAX_BODY) return;
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += buf.length;
      chunks.push(buf);
    };
    const write = res.write.bind(res) as unknown as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as unknown as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as unknown as ServerResponse['write'];
    res.end = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    }) as unknown as ServerResponse['end'];
    res.on('finish', () => {
      const route = (req as IncomingMessage & { route?: { path?: unknown } }).route?.path;
      const type = String(res.getHeader('content-type') ?? '');
      if (
        typeof route !== 'string' ||
        OUTSIDE_DOCUMENT.some((p) => route.startsWith(p)) ||
        !type.startsWith('application/json') ||
        size === 0 ||
        size > MAX_BODY
      )
        return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = { unparseable: Buffer.concat(chunks).toString('utf8').slice(0, 200) };
      }
      records.push({ method: req.method!.toLowerCase(), route, status: res.statusCode, body, test });
    });
  });

  return {
    flush() {
      if (records.length === 0) return;
      const file = join(dir, `${test}-${process.pid}-${randomBytes(4).toString('hex')}.json`);
      writeFileSync(file, JSON.stringify(records.splice(0)));
    },
  };
}
