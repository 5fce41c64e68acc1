import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Readable } from 'node:stream';

import { answerBytes, contentLengthOf } from './answer-bytes';

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Sends `requests` on one connection and, per answer, the bytes the socket wrote for it
 * (counted at 'finish', when they have all been handed to the socket) beside answerBytes.
 */
async function measure(requests: string, answer: Answer, count: number): Promise<{ written: number; counted: number; received: number }[]> {
  const seen: { written: number; counted: number }[] = [];
  const server = createServer((req, res) => {
    const socket = req.socket;
    const before = socket.bytesWritten;
    res.once('finish', () => seen.push({ written: socket.bytesWritten - before, counted: answerBytes(res) }));
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const received = await new Promise<number>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(requests));
      let bytes = 0;
      socket.on('data', (d: Buffer) => (bytes += d.length));
      socket.on('end', () => resolve(bytes));
      socket.on('error', reject);
    });
    expect(seen).toHaveLength(count);
    return seen.map((s) => ({ ...s, received }));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const BODY = Buffer.alloc(2048, 'a');
const whole: Answer = (_req, res) => {
  res.writeHead(200, ['Content-Type', 'text/html; charset=utf-8', 'Content-Length', String(BODY.length), 'Cache-Tag', 'p,d']);
  res.end(_req.method === 'HEAD' ? undefined : BODY);
};

describe('answerBytes', () => {
  it('is what the socket wrote for a whole body, a HEAD, a 304 and a streamed body', async () => {
    const get = await measure('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', whole, 1);
    expect(get[0].counted).toBe(get[0].written);
    expect(get[0].counted).toBe(get[0].received);
    expect(get[0].counted).toBeGreaterThan(BODY.length);

    const head = await measure('HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', whole, 1);
    expect(head[0].counted).toBe(head[0].written);
    expect(head[0].counted).toBeLessThan(BODY.length);

    const notModified = await measure(
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      (_req, res) => {
        res.writeHead(304, ['ETag', '"a"', 'Cache-Control', 'no-cache']);
        res.end();
      },
      1,
    );
    expect(notModified[0].counted).toBe(notModified[0].written);

    const big = Buffer.alloc(600_000, 'b');
    const streamed = await measure(
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      (_req, res) => {
        res.writeHead(200, { 'content-length': big.length, 'Content-Type': 'text/csv' });
        Readable.from([big.subarray(0, 300_000), big.subarray(300_000)]).pipe(res);
      },
      1,
    );
    expect(streamed[0].counted).toBe(streamed[0].written);
    expect(streamed[0].counted).toBe(streamed[0].received);
  });

  it('counts each of two pipelined answers, where the socket had not yet written the second', async () => {
    const two = await measure('GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', whole, 2);
    expect(two[0].counted + two[1].counted).toBe(two[0].received);
  });

  it('reads the Content-Length of a head however it is spelled', () => {
    expect(contentLengthOf('HTTP/1.1 200 OK\r\nContent-Length: 51193\r\nVary: Cookie\r\n\r\n')).toBe(51193);
    expect(contentLengthOf('HTTP/1.1 200 OK\r\ncontent-length:  12\r\n\r\n')).toBe(12);
    expect(contentLengthOf('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')).toBe(0);
  });
});
