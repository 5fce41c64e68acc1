import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

import type { CommonErrorCode, ErrorBody } from './errors';

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

/**
 * Bounds how long a client may hold a connection without sending its request. Node's
 * own headersTimeout and requestTimeout answer 408 and close (a slowloris of headers or
 * of body cannot outlast them); the idle timeout is ours, since Node's `server.timeout`
 * would also cut a request the server itself is slow to answer (a big deploy).
 */
export function applyConnectionTimeouts(server: Server, t: ConnectionTimeouts): void {
  server.headersTimeout = t.headersMs;
  server.requestTimeout = t.requestMs;
  server.keepAliveTimeout = t.keepAliveMs;
  // Read when the server starts listening (the checking timer starts then).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = checkingIntervalMs(t);
  // Node arms this on every connection, and re-arms it on each keep-alive request that follows
  // (the keep-alive timeout stands in between requests), so nothing needs doing per request.
  server.timeout = t.idleMs;
  // One listener on the server instead of one per response (a closure and a listener per
  // request was a few per cent of a cached site answer): with it, Node destroys no socket
  // itself, so this chooses per case. The response in flight is the socket's `_httpMessage`.
  server.on('timeout', (socket: Socket) => {
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    // No answer under way: an idle keep-alive connection, closed as Node would.
    if (!res?.req) socket.destroy();
    else onIdle(res.req, res, t.idleMs);
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
    res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
    return;
  }
  // Bytes wait to be written: the client has stopped reading the answer.
  if (socket.writableLength > 0) socket.destroy();
  // Otherwise the server is still working on the answer; that is not the client's idleness.
}
