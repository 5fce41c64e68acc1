import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the sweep knows of one connection: its byte count and request state when last seen changing, and when. */
export interface IdleState {
  progress: number;
  since: number;
  inRequest: boolean;
}

/** What one look at a connection sees. */
export interface ConnectionLook {
  /** Bytes read plus bytes written so far. */
  progress: number;
  /** Headers read and the answer not finished. */
  inRequest: boolean;
  /** It has written something: an answer, so it now waits for its next request. */
  answered: boolean;
}

/** How long a connection may sit still. */
export interface IdleLimits {
  /** No bytes moving while a request is under way. */
  idleMs: number;
  /** No next request after an answer. */
  keepAliveMs: number;
}

/** What a sweep does with one connection. */
export type IdleVerdict = 'moving' | 'wait' | 'idle_request' | 'idle_keep_alive';

/**
 * The sweep's rule for one connection, pure: bytes moved since the last look (either way),
 * or a request started or finished, restart its idle clock (the last bytes of an answer
 * count as written when queued, which may be long before a slow reader took them and the
 * answer finished: the keep-alive wait starts at the finish, as Node's timer did). Past
 * `idleMs` without any, a connection with a request under way is idle (the caller decides
 * what that request's idleness means); past `keepAliveMs`, a connection that answered and
 * sent no next request is done with. One that never sent a request is Node's: its
 * headersTimeout closes it. Updates `state`.
 */
export function idleVerdict(state: IdleState, now: number, look: ConnectionLook, limits: IdleLimits): IdleVerdict {
  if (look.progress !== state.progress || look.inRequest !== state.inRequest) {
    state.progress = look.progress;
    state.inRequest = look.inRequest;
    state.since = now;
    return 'moving';
  }
  const still = now - state.since;
  if (!look.inRequest) return look.answered && still >= limits.keepAliveMs ? 'idle_keep_alive' : 'wait';
  if (still < limits.idleMs) return 'wait';
  // Told once per idleMs, as Node's socket timeout fired again while nothing moved.
  state.since = now;
  return 'idle_request';
}

/** How often the sweep looks: a quarter of the shorter limit, between 50 ms and 1 s. */
export function idleSweepIntervalMs(limits: IdleLimits): number {
  return Math.min(1000, Math.max(50, Math.floor(Math.min(limits.idleMs, limits.keepAliveMs) / 4)));
}

type HttpSocket = Socket & { _httpMessage?: { req?: unknown } | null };

/**
 * Finds connections that moved no bytes for too long with one timer for the whole server,
 * where Node gives each socket its own: `server.timeout` re-arms a timer when each request
 * starts and refreshes it on every read and write, and `server.keepAliveTimeout` arms one
 * when each answer finishes and clears it when the next request arrives. Side by side,
 * dropping the first answered 1–6 % more cached site requests (2026-12-03) and the second
 * 9–11 % more (2026-12-05; docs/decisions.md). A stall is seen between its limit and that
 * plus two sweep intervals (the sweep that first sees the last bytes starts the clock).
 * `onIdleRequest` gets the socket whose request (headers read, answer not finished) is
 * idle; an idle keep-alive connection is destroyed, as Node's keep-alive timer does. The
 * server has no 'upgrade' listener: one added would have to take its sockets out of here
 * (an upgraded socket has no `_httpMessage` and would be taken for an idle keep-alive).
 */
export function watchIdleConnections(server: Server, limits: IdleLimits, onIdleRequest: (socket: Socket) => void): void {
  const watched = new Map<Socket, IdleState>();
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    watched.set(socket, { progress: 0, since: performance.now(), inRequest: false });
    socket.once('close', () => watched.delete(socket));
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, state] of watched) {
      const written = socket.bytesWritten ?? 0;
      const look = { progress: socket.bytesRead + written, inRequest: (socket as HttpSocket)._httpMessage != null, answered: written > 0 };
      const verdict = idleVerdict(state, now, look, limits);
      if (verdict === 'idle_request') onIdleRequest(socket);
      else if (verdict === 'idle_keep_alive') socket.destroy();
    }
  }, idleSweepIntervalMs(limits));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
