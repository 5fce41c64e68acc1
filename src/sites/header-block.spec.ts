import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

import { headerBlock, prepareHead, writePreparedHead } from './header-block';

const FILE_HEADERS = [
  'ETag',
  '"abc"',
  'Cache-Control',
  'public, max-age=0, must-revalidate',
  'X-Content-Type-Options',
  'nosniff',
  'Cache-Tag',
  'project-1,deployment-2',
  'Surrogate-Key',
  'project-1 deployment-2',
  'Accept-Ranges',
  'bytes',
  'Content-Type',
  'text/html; charset=utf-8',
  'Vary',
  'Accept-Encoding',
  'Content-Length',
  '5',
];

/** The raw bytes of one answer written by `answer`, Date line removed (it is the clock's). */
async function rawAnswer(answer: (res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer((_req, res) => {
    answer(res);
    res.end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('end', () => resolve(text.replace(/^Date: .*\r\n/m, '')));
      socket.on('error', reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('prepared header blocks', () => {
  it('puts the same bytes on the wire as writeHead with the list', async () => {
    const head = prepareHead(FILE_HEADERS);
    expect(head.block).toBeDefined();
    const viaList = await rawAnswer((res) => res.writeHead(200, FILE_HEADERS));
    const viaBlock = await rawAnswer((res) => writePreparedHead(res, 200, head));
    expect(viaBlock).toBe(viaList);
    expect(viaBlock).toContain('\r\nSurrogate-Key: project-1 deployment-2\r\n');
  });

  it('keeps a header set on the response before (a preview’s X-Robots-Tag)', async () => {
    const head = prepareHead(FILE_HEADERS);
    const viaList = await rawAnswer((res) => {
      res.setHeader('X-Robots-Tag', 'noindex');
      res.writeHead(200, FILE_HEADERS);
    });
    const viaBlock = await rawAnswer((res) => {
      res.setHeader('X-Robots-Tag', 'noindex');
      writePreparedHead(res, 200, head);
    });
    expect(viaBlock).toBe(viaList);
    expect(viaBlock).toContain('\r\nX-Robots-Tag: noindex\r\n');
  });

  it('serves many responses from one block without any of them changing it', async () => {
    const head = prepareHead(FILE_HEADERS);
    await rawAnswer((res) => writePreparedHead(res, 200, head));
    expect(Object.isFrozen(head.block)).toBe(true);
    expect(await rawAnswer((res) => writePreparedHead(res, 404, head))).toMatch(/^HTTP\/1\.1 404 Not Found\r\nETag: "abc"\r\n/);
  });

  it('has no block for a list naming a header twice, so the order stays the list’s', async () => {
    const list = ['Link', '</a.css>; rel=preload', 'Cache-Control', 'no-cache', 'link', '</b.js>; rel=preload', 'Content-Length', '5'];
    const head = prepareHead(list);
    expect(head.block).toBeUndefined();
    expect(await rawAnswer((res) => writePreparedHead(res, 200, head))).toContain(
      'Link: </a.css>; rel=preload\r\nCache-Control: no-cache\r\nlink: </b.js>; rel=preload\r\n',
    );
  });

  it('has no block for an invalid name or value: writeHead throws as it always did', () => {
    expect(headerBlock(['Bad Name', 'x'])).toBeUndefined();
    expect(headerBlock(['X-Ok', 'line\nbreak'])).toBeUndefined();
    expect(headerBlock(['X-Odd'])).toBeUndefined();
    expect(headerBlock(['__proto__', 'x', 'Content-Length', '0'])).toBeUndefined();
    expect(headerBlock(['Constructor', 'x'])).toEqual({ constructor: ['Constructor', 'x'] });
  });
});
