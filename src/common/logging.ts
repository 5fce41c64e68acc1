import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

import { type LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';

import { type TrustProxy } from '../config/trust-proxy';
import { addressPrefix } from './address-prefix';
import { clientAddress } from './client-address';

/**
 * Paths that never reach a log line. Credentials travel in these headers;
 * request bodies are never logged at all.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
];

/**
 * Errors as pino serialises them, minus the bound parameters a failed query carries:
 * those can hold password hashes, token hashes or visitors' emails.
 */
export function serializeError(err: unknown): Record<string, unknown> {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  delete out.parameters;
  const driverError = out.driverError as Record<string, unknown> | undefined;
  if (driverError && typeof driverError === 'object') {
    out.driverError = { ...driverError };
    delete (out.driverError as Record<string, unknown>).parameters;
    delete (out.driverError as Record<string, unknown>).detail;
  }
  delete out.detail;
  return out;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
    },
    destination,
  );
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Reuses a caller's well-formed X-Request-Id (load balancers set one) or makes one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The level of a request's line: errors and 5xx `error`, other refusals `warn`, the rest `info`. */
export function requestLogLevel(statusCode: number, failed: boolean): 'error' | 'warn' | 'info' {
  return failed || statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
}

/**
 * Request headers that carry a client's address (set by a proxy, or forged by the client):
 * never logged; the line has the client's network (`remoteAddress`) instead.
 */
const ADDRESS_HEADERS = [
  'x-forwarded-for',
  'forwarded',
  'x-real-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-client-ip',
  'x-cluster-client-ip',
];

/**
 * The headers of a request's log line: without the address headers, and without the user
 * agent unless the logger writes debug lines (a user agent and a /24 together narrow a
 * network down to a person).
 */
export function loggedHeaders(headers: IncomingHttpHeaders, withUserAgent: boolean): IncomingHttpHeaders {
  const out = { ...headers };
  for (const name of ADDRESS_HEADERS) delete out[name];
  if (!withUserAgent) delete out['user-agent'];
  return out;
}

/** Told of every answered request (not aborted ones) when it ends (metrics): the time from arrival, in seconds. */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse, seconds: number) => void;

/**
 * One JSON line per request when it ends: `{req, res, responseTime}`, "request completed"
 * (or "request aborted" / "request errored"), as pino-http writes it, and an X-Request-Id
 * on every answer. Written here instead of using pino-http because pino-http serialises
 * the request into a child logger on every request, whether or not its line is written:
 * that was 63 of 275 µs of CPU per `GET /v1/me` at LOG_LEVEL=warn (bench:api). Here the
 * line is only built when its level is enabled.
 *
 * `observe` (the metrics) rides on the same listeners: a request's end is watched once.
 * Only `close` and `error`: a response always emits `close`, after `finish` when it was
 * answered, so listening to `finish` as well only cost two listeners per request.
 */
export function httpLogger(logger: Logger, options: { observe?: RequestObserver; trustProxy: TrustProxy }) {
  const { observe, trustProxy } = options;
  return (req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void): void => {
    const id = requestIdOf(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    const done = (err?: Error) => {
      res.removeListener('close', done);
      res.removeListener('error', done);
      const ms = performance.now() - started;
      if (res.writableFinished) observe?.(req, res, ms / 1000);
      const level = requestLogLevel(res.statusCode, !!err);
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        // Query strings may carry signed links or search terms: the path only.
        req: {
          id,
          method: req.method,
          url: String(req.url).split('?')[0],
          // The client's network, not its address (docs/security.md, "What request logs keep").
          remoteAddress: addressPrefix(clientAddress(req, trustProxy)),
          headers: loggedHeaders(req.headers, logger.isLevelEnabled('debug')),
        },
        res: { statusCode: res.statusCode, headers: res.getHeaders() },
        responseTime: Math.round(ms),
        ...(err ? { err } : {}),
      };
      const message = err ? 'request errored' : !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
      logger[level](line, message);
    };
    res.on('close', done);
    res.on('error', done);
    next();
  };
}

/** Lets Nest's own messages go through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
