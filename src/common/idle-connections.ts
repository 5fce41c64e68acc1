import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the sweep knows of one connection: its byte count when last seen moving, and when. */
export interface IdleState {
  progress: number;
  since: number;
}

/** What a sweep does with one connection. */
export type IdleVerdict = 'moving' | 'wait' | 'idle_request';

/**
 * The sweep's rule for one connection, pure: bytes moved since the last look (either way)
 * restart its idle clock; past `idleMs` without any, a connection with a request under way
 * is idle (the caller decides what that request's idleness means). One without a request
 * is Node's: its headersTimeout closes a connection that never sends one, its
 * keepAliveTimeout one that sends no next one. Updates `state`.
 */
export function idleVerdict(state: IdleState, now: number, progress: number, inRequest: boolean, idleMs: number): IdleVerdict {
  if (progress !== state.progress) {
    state.progress = progress;
    state.since = now;
    return 'moving';
  }
  if (now - state.since < idleMs) return 'wait';
  if (!inRequest) return 'wait';
  // Told once per idleMs, as Node's socket timeout fired again while nothing moved.
  state.since = now;
  return 'idle_request';
}

/** How often the sweep looks: a quarter of the idle timeout, between 50 ms and 1 s. */
export function idleSweepIntervalMs(idleMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(idleMs / 4)));
}

type HttpSocket = Socket & { _httpMessage?: { req?: unknown } | null };

/**
 * Finds connections that moved no bytes for `idleMs` with one timer for the whole server,
 * where Node's `server.timeout` gives each socket its own: Node re-arms that timer on every
 * request and refreshes it on every read and write. Side by side against it, this answers
 * 1–6 % more cached site requests (bench:serve-compare, 2026-12-03, docs/decisions.md). A
 * stall is seen between `idleMs` and `idleMs` plus two sweep intervals (the sweep that
 * first sees a request's bytes restarts its clock). `onIdleRequest` gets the socket whose
 * request (headers read, answer not finished) is idle.
 */
export function watchIdleConnections(server: Server, idleMs: number, onIdleRequest: (socket: Socket) => void): void {
  const watched = new Map<Socket, IdleState>();
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    watched.set(socket, { progress: 0, since: performance.now() });
    socket.once('close', () => watched.delete(socket));
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [socket, state] of watched) {
      const inRequest = (socket as HttpSocket)._httpMessage != null;
      if (idleVerdict(state, now, socket.bytesRead + (socket.bytesWritten ?? 0), inRequest, idleMs) === 'idle_request') onIdleRequest(socket);
    }
  }, idleSweepIntervalMs(idleMs));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
