import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a connection whose request body was refused stays open for reading after the
 * answer: long enough for a client that is still sending to read the answer and stop
 * (Apache's lingering close waits up to 2 s as well), short enough that a client that
 * never stops holds nothing for long.
 */
export const LINGER_MS = 2000;

const LINGERING = Symbol('lingering');

/**
 * Answers a request whose body is still arriving and then closes its connection without
 * losing the answer ("lingering close").
 *
 * Node ends a `Connection: close` answer with `socket.destroySoon()`: FIN, then close as
 * soon as the answer is handed to the kernel. A client that is still sending the refused
 * body keeps bytes arriving; closing a socket with unread data makes the kernel send a
 * reset instead of a FIN (RFC 1122 4.2.2.13), which discards what was not yet delivered,
 * and the client then sees "connection reset" instead of the 413 (seen in CI under load).
 * So the connection is half-closed instead: FIN after the answer, reading (and discarding)
 * goes on until the client closes its side or LINGER_MS pass.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  // Null once Node has detached it (the answer already went, e.g. a 408 of the idle check).
  const socket = (req.socket as Socket | null) ?? (res.socket as Socket | null);
  if (socket) lingerOnClose(socket);
}

/** For answers written with writeHead (`Connection: close` among its headers). */
export function lingerOnClose(socket: Socket): void {
  const marked = socket as Socket & { [LINGERING]?: true };
  if (marked[LINGERING]) return;
  marked[LINGERING] = true;
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (!this.writableEnded) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // Whatever still arrives is read and dropped (the refused request is already dumped).
    this.resume();
  };
}
