import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** Undefined when the connection closed without an answer. */
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the whole answer (or to the close, when there was none). */
  ms: number;
  /** Whether the server closed (sent its FIN, or reset) the connection within `closeWithinMs` of answering. */
  closed: boolean;
}

export interface RawOptions {
  /** Writes the body (or nothing): called once the head is written; stop() is called when the answer is in. */
  feed?: (socket: Socket) => (() => void) | void;
  /** Gives up (and fails) after this long without an answer or a close. */
  timeoutMs?: number;
  closeWithinMs?: number;
}

/**
 * One request over a raw socket, for what an HTTP client library would not send:
 * a declared length it never finishes, a trickle, a stall. Resolves with the first
 * answer (status, headers, body) and whether the server then closed the connection.
 */
export function rawRequest(port: number, head: string, options: RawOptions = {}): Promise<RawAnswer> {
  const { timeoutMs = 30_000, closeWithinMs = 1000 } = options;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let answer: RawAnswer | undefined;
    let stop: (() => void) | void;
    let closeTimer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms; received so far: ${received.toString().slice(0, 200)}`));
    }, timeoutMs);
    const finish = (closed: boolean) => {
      clearTimeout(giveUp);
      clearTimeout(closeTimer);
      stop?.();
      socket.destroy();
      resolve({ ...(answer ?? { headers: {}, body: '', ms: Date.now() - started }), closed });
    };
    const parse = () => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      const body = received.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      if (body.length < length) return;
      answer = { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8'), ms: Date.now() - started, closed: false };
      stop?.();
      closeTimer = setTimeout(() => finish(false), closeWithinMs);
    };
    socket.on('connect', () => {
      socket.write(head);
      stop = options.feed?.(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      if (answer) return;
      received = Buffer.concat([received, chunk]);
      parse();
    });
    // A server that closes while the client still sends may reset the connection: that is a close too.
    socket.on('error', () => undefined);
    // The server's FIN is its close. The socket's own 'close' comes only once this client's
    // queued body bytes have drained into a server that lingers reading them (lingering-close.ts),
    // which on a loaded machine can take longer than closeWithinMs (a CI failure of the chunked case).
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

/** Writes `bytes` every `everyMs` until stopped (the connection's end stops it too). */
export function trickle(bytes: string, everyMs: number): (socket: Socket) => () => void {
  return (socket) => {
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(bytes);
    }, everyMs);
    socket.on('close', () => clearInterval(timer));
    return () => clearInterval(timer);
  };
}

export function head(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A connection from `localAddress` (any of 127.0.0.0/8 can be bound locally), resolved once it is established. */
export function connectFrom(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Resolves true when the server closes `socket` without sending a byte, false when
 * bytes arrive first; rejects if neither happens within `ms`.
 */
export function closedUnanswered(socket: Socket, ms = 10_000): Promise<boolean> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => reject(new Error(`the server neither closed the connection nor answered within ${ms} ms`)), ms);
    socket.on('error', () => undefined);
    socket.once('data', () => {
      clearTimeout(timer);
      resolve(false);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** One request on an open connection: resolves with the status of the answer and whether the server then closed the connection. */
export function exchange(socket: Socket, text: string, ms = 10_000): Promise<{ status?: number; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    let received = '';
    let status: number | undefined;
    let body = '';
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms; received: ${received.slice(0, 200)}`)), ms);
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve({ status, body, closed });
    };
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(received.slice(0, end))?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      status = Number(received.split(' ')[1]);
      body = received.slice(end + 4, end + 4 + length);
      // A server that says it closes the connection is waited for (onClose).
      if (!/\r\nconnection:\s*close/i.test(received.slice(0, end))) done(false);
    };
    const onClose = () => done(true);
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', () => undefined);
    socket.write(text);
  });
}
