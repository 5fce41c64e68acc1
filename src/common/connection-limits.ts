import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

import { addressKey } from './address-prefix';
import { isForwarded, isLoopback } from './client-address';
import type { CommonErrorCode, ErrorBody } from './errors';
import { watchIdleConnections } from './idle-connections';
import { lingerOnClose } from './lingering-close';

export interface ConnectionTimeouts {
  /** All request headers must arrive within this. */
  headersMs: number;
  /** The whole request, body included, must arrive within this: the bound on a trickled body. */
  requestMs: number;
  /** No bytes moving for this long while the body arrives (or while the client should be reading the answer). */
  idleMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

/**
 * How often Node looks for requests past headersMs/requestMs (its default, 30 s, would
 * let a 2 s timeout run to 32 s): a tenth of the shorter one, between 100 ms and 1 s.
 * The check walks the open connections only, so once a second costs nothing.
 */
export function checkingIntervalMs(t: Pick<ConnectionTimeouts, 'headersMs' | 'requestMs'>): number {
  return Math.min(1000, Math.max(100, Math.floor(Math.min(t.headersMs, t.requestMs) / 10)));
}

/** Node's HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER. */
const KEEP_ALIVE_GRACE_MS = 1000;

/**
 * Bounds how long a client may hold a connection without sending its request. Node's
 * own headersTimeout and requestTimeout answer 408 and close (a slowloris of headers or
 * of body cannot outlast them); the idle and keep-alive timeouts are ours
 * (idle-connections.ts), since Node's `server.timeout` would also cut a request the server
 * itself is slow to answer (a big deploy), and Node's timers for both cost timer-list work
 * on every request of every connection.
 */
export function applyConnectionTimeouts(server: Server, t: ConnectionTimeouts): void {
  server.headersTimeout = t.headersMs;
  server.requestTimeout = t.requestMs;
  // An idle keep-alive connection is closed by the sweep below instead: Node's keep-alive
  // timer is armed after every answer and cleared by the next request, two timer-list
  // operations per request. Without it Node also sends no `Keep-Alive: timeout=` hint, as
  // nginx and Go's server send none by default.
  server.keepAliveTimeout = 0;
  // Read when the server starts listening (the checking timer starts then).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = checkingIntervalMs(t);
  server.timeout = 0;
  // A second past the timeout, as Node's own keep-alive timer waited: a client whose pool
  // drops idle connections after the same 5 s (Node's global agent) is not cut as it sends.
  watchIdleConnections(server, { idleMs: t.idleMs, keepAliveMs: t.keepAliveMs + KEEP_ALIVE_GRACE_MS }, (socket) => {
    // The response in flight is the socket's `_httpMessage`.
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (res?.req) onIdle(res.req, res, t.idleMs);
  });
}

function onIdle(req: IncomingMessage, res: ServerResponse, idleMs: number): void {
  const socket = req.socket;
  if (!req.complete) {
    if (res.headersSent) {
      socket.destroy();
      return;
    }
    const error: ErrorBody = {
      statusCode: 408,
      error: STATUS_CODES[408]!,
      message: `The request body stopped arriving: no bytes for ${idleMs} ms`,
      code: 'request_timeout' satisfies CommonErrorCode,
    };
    const body = JSON.stringify(error);
    // The handler still waiting for the body then meets the close and gives up.
    lingerOnClose(socket);
    res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
    return;
  }
  // Bytes wait to be written: the client has stopped reading the answer.
  if (socket.writableLength > 0) socket.destroy();
  // Otherwise the server is still working on the answer; that is not the client's idleness.
}

/**
 * Loopback connections allowed past the overall cap, for direct local callers only (the
 * health check, the TLS proxy's ask, metrics): the service stays observable while flooded.
 */
export const LOOPBACK_RESERVE = 32;

export interface ConnectionCaps {
  /** Open connections one client address (an IPv6 /64) may hold; 0: no per-address cap. */
  perAddress: number;
  /** Open connections in all, loopback's reserve aside. */
  total: number;
  /** Loopback connections allowed past `total` (see LOOPBACK_RESERVE). */
  loopbackReserve: number;
  /**
   * Peers the per-address cap does not apply to: the trusted proxies (TRUST_PROXY), whose
   * connections carry many clients each. They should cap per client themselves.
   */
  perAddressExempt?: (address: string) => boolean;
}

export type RefusalReason = 'per_address' | 'total';

/**
 * The soft limit on open files (RLIMIT_NOFILE) as /proc/self/limits shows it, or
 * undefined when the text has no such line. `unlimited` is Infinity.
 */
export function parseOpenFileLimit(limits: string): number | undefined {
  const match = /^Max open files\s+(\S+)\s+/m.exec(limits);
  return match ? parseLimit(match[1]) : undefined;
}

function parseLimit(text: string): number | undefined {
  if (text.trim() === 'unlimited') return Infinity;
  const n = Number(text.trim());
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * This process's soft limit on open files. Node has no API for it: /proc/self/limits on
 * Linux, else a shell's `ulimit -n` (a child inherits the limit, which Node raised to the
 * hard limit at start), else undefined. Read once at start.
 */
export function readOpenFileLimit(): number | undefined {
  try {
    const limit = parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
    if (limit !== undefined) return limit;
  } catch {
    // Not Linux (or no /proc): ask a shell.
  }
  try {
    return parseLimit(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return undefined;
  }
}

/** What is assumed when the limit cannot be read: the usual soft default of Linux and macOS. */
export const ASSUMED_OPEN_FILE_LIMIT = 1024;
/** Past this, more client connections are a memory question, not a descriptor one. */
const MAX_DEFAULT_CONNECTIONS = 1_000_000;

/**
 * The default overall cap: a quarter of the descriptors (at least 256) is left for what
 * else the process opens (database connections, files being served or stored, object
 * store requests, logs), and the loopback reserve comes on top of the cap.
 */
export function defaultMaxConnections(openFileLimit: number | undefined): number {
  const limit = Math.min(openFileLimit ?? ASSUMED_OPEN_FILE_LIMIT, MAX_DEFAULT_CONNECTIONS * 2);
  return Math.max(1, Math.min(MAX_DEFAULT_CONNECTIONS, Math.floor(limit - Math.max(256, limit / 4) - LOOPBACK_RESERVE)));
}

/**
 * Caps the open connections per client address and overall, so one client cannot take
 * every file descriptor (then every site read, database query and health check fails).
 * A connection over a cap is destroyed as it arrives: no answer, since writing one would
 * keep the socket (and its descriptor) longer, which is what the cap is there to stop.
 *
 * Past the overall cap a loopback peer may still connect, up to `loopbackReserve` more,
 * and such a connection serves only direct local requests (no forwarding header): a
 * local proxy (Caddy) also connects from loopback, on behalf of everyone, and gets a 503
 * and a close there, so the reserve stays free for the health check and the TLS ask.
 *
 * Node's own `server.maxConnections` is not used: it refuses before anything can tell a
 * loopback peer from the rest. Call after every 'request' listener is installed.
 * Returns the current counts (for metrics).
 */
export function applyConnectionCaps(
  server: Server,
  caps: ConnectionCaps,
  onRefused?: (reason: RefusalReason, address: string) => void,
): () => { open: number; reserved: number } {
  const perAddress = new Map<string, number>();
  let open = 0;
  let reserved = 0;
  const inReserve = new WeakSet<Socket>();
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // Already gone (reset before it was accepted): nothing to count.
    if (address === undefined) return socket.destroy();
    const key = caps.perAddress > 0 && !caps.perAddressExempt?.(address) ? addressKey(address) : undefined;
    const mine = key === undefined ? 0 : (perAddress.get(key) ?? 0);
    if (key !== undefined && mine >= caps.perAddress) return refuse(socket, 'per_address', address);
    const reserve = open >= caps.total;
    if (reserve && (!isLoopback(address) || reserved >= caps.loopbackReserve)) return refuse(socket, 'total', address);
    if (reserve) {
      reserved++;
      inReserve.add(socket);
    } else open++;
    if (key !== undefined) perAddress.set(key, mine + 1);
    socket.once('close', () => {
      if (reserve) reserved--;
      else open--;
      if (key === undefined) return;
      const left = perAddress.get(key)! - 1;
      if (left > 0) perAddress.set(key, left);
      else perAddress.delete(key);
    });
  });
  const refuse = (socket: Socket, reason: RefusalReason, address: string) => {
    socket.destroy();
    onRefused?.(reason, address);
  };

  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  // Every request passes here: with no reserve connection open none can be in it (no
  // WeakSet lookup), and the usual single listener is called directly.
  const [only] = listeners;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (reserved > 0 && inReserve.has(req.socket) && isForwarded(req.headers)) return overCapacity(res);
    if (listeners.length === 1) only.call(server, req, res);
    else for (const listener of listeners) listener.call(server, req, res);
  });
  return () => ({ open, reserved });
}

function overCapacity(res: ServerResponse): void {
  const error: ErrorBody = {
    statusCode: 503,
    error: STATUS_CODES[503]!,
    message: 'The server is at its connection limit; retry shortly',
    code: 'service_unavailable' satisfies CommonErrorCode,
  };
  const body = JSON.stringify(error);
  res.shouldKeepAlive = false;
  res.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': '1',
    Connection: 'close',
  });
  res.end(body);
}
