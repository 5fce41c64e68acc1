import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';

import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, siteHost } from '../helpers/sites';
import { head, rawRequest, trickle } from './raw-http';

jest.setTimeout(30_000);

const GB5 = 5 * 1024 * 1024 * 1024;
const MB = 1024 * 1024;
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** A JSON object with `n` keys, about 13 bytes each. */
function manyKeys(n: number, base: Record<string, unknown> = {}): string {
  const parts = Array.from({ length: n }, (_, i) => `"k${i}":1`);
  const prefix = JSON.stringify(base).slice(1, -1);
  return `{${prefix}${prefix ? ',' : ''}${parts.join(',')}}`;
}

function nested(depth: number, open = '{"a":', close = '}'): string {
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

describe('Request bodies and connections (e2e)', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { BODY_LIMIT_BYTES: String(4 * MB) } });
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(() => t.close());

  describe('a body over the limit is refused at once, before it is read', () => {
    it('answers a declared 5 GB JSON body with 413 within a second and closes the connection', async () => {
      const answer = await rawRequest(
        t.port,
        head('POST', '/v1/deployments', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': GB5 }),
        { feed: (s) => void s.write(Buffer.alloc(MB, 0x20)) },
      );
      expect(answer.status).toBe(413);
      expect(answer.ms).toBeLessThan(1000);
      expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 413, error: 'Payload Too Large', code: 'payload_too_large', limit: 4 * MB });
      expect(answer.closed).toBe(true);
    });

    it('answers a declared 5 GB body to a public route (login) with 413 at once', async () => {
      const answer = await rawRequest(t.port, head('POST', '/auth/login', { 'Content-Type': 'application/json', 'Content-Length': GB5 }), {
        feed: (s) => void s.write(Buffer.alloc(MB, 0x20)),
      });
      expect(answer).toMatchObject({ status: 413, closed: true });
      expect(answer.ms).toBeLessThan(1000);
    });

    it('cuts a chunked JSON body off at the limit with 413 while the client is still sending', async () => {
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const answer = await rawRequest(
        t.port,
        head('POST', '/v1/deployments', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }),
        { feed: trickle(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`, 20) },
      );
      expect(answer).toMatchObject({ status: 413, closed: true });
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', limit: 4 * MB });
    });

    it('keeps reading a refused body after the 413 (lingering close), so a client still sending is not reset before it reads the answer', async () => {
      // Closing a socket with unread bytes makes the kernel send a reset, which can discard
      // the answer on its way (seen in CI under load). Deterministic form of that: the client
      // keeps writing after the answer; a server that closed at once resets those writes.
      const outcome = await new Promise<{ status?: number; error?: string; ended: boolean }>((resolve) => {
        // Half-open, as a client still uploading is: the server's FIN does not stop its writes.
        const socket = connect({ port: t.port, host: '127.0.0.1', allowHalfOpen: true });
        let text = '';
        let ended = false;
        let writer: NodeJS.Timeout | undefined;
        const done = (error?: string) => {
          clearInterval(writer);
          socket.destroy();
          resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) || undefined, error, ended });
        };
        socket.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
        socket.on('end', () => (ended = true));
        socket.on('connect', () => {
          socket.write(head('POST', '/v1/deployments', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': GB5 }));
          socket.write(Buffer.alloc(MB, 0x20));
        });
        socket.on('data', (chunk: Buffer) => {
          const first = text === '';
          text += chunk.toString('latin1');
          if (!first) return;
          // The answer is in: go on sending for 300 ms, well inside the server's linger time.
          const started = Date.now();
          writer = setInterval(() => {
            if (Date.now() - started > 300) return done();
            socket.write(Buffer.alloc(64 * 1024, 0x20));
          }, 10);
        });
      });
      expect(outcome).toEqual({ status: 413, error: undefined, ended: true });
    });

    it('answers a declared 5 GB blob upload with 413 within a second and closes the connection', async () => {
      const answer = await rawRequest(
        t.port,
        head('PUT', `/v1/blobs/${sha('x')}`, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': GB5 }),
        { feed: (s) => void s.write(Buffer.alloc(MB, 1)) },
      );
      expect(answer).toMatchObject({ status: 413, closed: true });
      expect(answer.ms).toBeLessThan(1000);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large' });
    });

    it('answers a declared 5 GB blob upload without a credential with 401 at once and closes the connection', async () => {
      const answer = await rawRequest(t.port, head('PUT', `/v1/blobs/${sha('x')}`, { 'Content-Type': 'application/octet-stream', 'Content-Length': GB5 }), {
        feed: (s) => void s.write(Buffer.alloc(MB, 1)),
      });
      expect(answer).toMatchObject({ status: 401, closed: true });
      expect(answer.ms).toBeLessThan(1000);
    });
  });

  describe('bodies are only read past 16 KB for a valid credential', () => {
    it('refuses a 1 MB body without a credential with 413 before reading it', async () => {
      const body = JSON.stringify({ email: 'a@example.test', password: 'x'.repeat(MB) });
      const res = await t.http().post('/auth/login').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ code: 'payload_too_large', limit: 16 * 1024 });
      expect(res.body.message).toContain('credential');
    });

    it('answers a large body with an invalid credential 401 at once, before reading it', async () => {
      const answer = await rawRequest(
        t.port,
        head('POST', '/v1/deployments', { Authorization: 'Bearer sk_live_not-a-real-token', 'Content-Type': 'application/json', 'Content-Length': 3 * MB }),
        { feed: (s) => void s.write(Buffer.alloc(MB, 0x20)) },
      );
      expect(answer).toMatchObject({ status: 401, closed: true });
      expect(answer.ms).toBeLessThan(1000);
      expect(JSON.parse(answer.body).code).toBe('unauthorized');
      expect(answer.headers['www-authenticate']).toContain('Bearer');
    });
  });

  describe('bodies too complex to validate cheaply are refused quickly', () => {
    it('refuses a 1 MB body of 100,000 keys in well under a second with a short 400, while /health still answers', async () => {
      const body = manyKeys(100_000, { project_slug: 'keys' });
      expect(body.length).toBeGreaterThan(MB);
      const started = Date.now();
      const big = t.http().post('/v1/deployments').set(bearer(token)).set('Content-Type', 'application/json').send(body);
      const health = (async () => {
        await new Promise((r) => setTimeout(r, 20));
        const s = Date.now();
        await t.http().get('/health').expect(200);
        return Date.now() - s;
      })();
      const [res, healthMs] = await Promise.all([big, health]);
      const ms = Date.now() - started;
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'body_too_complex' });
      expect(res.body.message).toMatch(/100001 keys.*at most/);
      expect(res.text.length).toBeLessThan(2000);
      // A guard against the defect, not a speed goal (those live in the benches): validating
      // these keys took 7.5 s on a quiet machine; the refusal took 0.5 s with a full test run
      // going beside it, and 1.1 s inside one (two workers and their browsers busy).
      expect(ms).toBeLessThan(2500);
      expect(healthMs).toBeLessThan(1000);
    });

    it('refuses a 100,000-key body to login (no credential) at once', async () => {
      const res = await t.http().post('/auth/login').set('Content-Type', 'application/json').send(manyKeys(100_000));
      expect([400, 413]).toContain(res.status);
      expect(res.text.length).toBeLessThan(2000);
    });

    it('names at most 10 unknown fields in a validation error, then how many more', async () => {
      const res = await t
        .http()
        .post('/auth/login')
        .set('Content-Type', 'application/json')
        .send(manyKeys(50, { email: 'a@example.test', password: 'pw' }));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain('k0: property k0 should not exist');
      expect(res.body.message).not.toContain('k10:');
      expect(res.body.message).toMatch(/and 40 more$/);
      expect(res.body.errors).toHaveLength(10);
    });

    it.each(['/auth/register', '/auth/login', '/auth/refresh'])(
      'answers JSON nested 2,000 and 7,000 deep to %s with a 400 naming the problem',
      async (path) => {
        for (const body of [nested(2000), nested(7000, '[', ']')]) {
          const res = await t.http().post(path).set('Content-Type', 'application/json').send(body);
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ code: 'body_too_complex' });
          expect(res.body.message).toMatch(/nested more than \d+ levels deep/);
        }
      },
    );

    it('answers JSON nested 10,000 deep to an authenticated route with a 400 (it overflowed the stack: a 500)', async () => {
      for (const body of [nested(10_000), nested(10_000, '{"project_slug":', '}')]) {
        const res = await t.http().post('/v1/deployments').set(bearer(token)).set('Content-Type', 'application/json').send(body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('body_too_complex');
      }
    });
  });
});

/** A raw keep-alive connection; `answers(n)` sends GET /health and waits for the n-th 200 on it (failing if it closes first). */
async function keepAliveClient(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let isClosed = false;
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((done) =>
    socket.on('close', () => {
      isClosed = true;
      done(Date.now());
    }),
  );
  await new Promise((done) => socket.on('connect', done));
  return {
    socket,
    closed,
    received: () => received,
    isClosed: () => isClosed,
    async answers(n: number): Promise<void> {
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      while ((received.match(/HTTP\/1\.1 200[^]*?\r\n\r\n/g) ?? []).length < n) {
        if (isClosed) throw new Error(`the connection closed before answer ${n}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

describe('Connection timeouts (e2e)', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_IDLE_TIMEOUT_MS: '1000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' },
    });
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(() => t.close());

  it('cuts a body trickled one byte at a time within the request timeout', async () => {
    const answer = await rawRequest(
      t.port,
      head('POST', '/v1/deployments', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': 1000 }),
      { feed: trickle(' ', 200), timeoutMs: 10_000 },
    );
    expect(answer.closed).toBe(true);
    if (answer.status !== undefined) expect(answer.status).toBe(408);
    expect(answer.ms).toBeLessThan(3500);
  });

  it('answers a body that stops arriving with 408 after the idle timeout', async () => {
    const answer = await rawRequest(
      t.port,
      head('PUT', `/v1/blobs/${sha('y')}`, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': 1000 }),
      { feed: (s) => void s.write('abc'), timeoutMs: 10_000 },
    );
    expect(answer).toMatchObject({ status: 408, closed: true });
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 408, code: 'request_timeout' });
    expect(answer.ms).toBeLessThan(2000);
  });

  it("answers 408 when the body of a keep-alive connection's second request stops arriving", async () => {
    // The idle timeout is armed per connection: Node re-arms it when a request follows the keep-alive wait.
    const client = await keepAliveClient(t.port);
    await client.answers(1);
    await new Promise((r) => setTimeout(r, 300));
    const sent = Date.now();
    const { socket, closed } = client;
    socket.write(
      head('PUT', `/v1/blobs/${sha('z')}`, { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': 1000 }),
    );
    socket.write('abc');
    const closedAt = await closed;
    expect(client.received()).toMatch(/HTTP\/1\.1 408 [\s\S]*"code":"request_timeout"/);
    expect(closedAt - sent).toBeLessThan(2500);
  });

  it('closes a keep-alive connection that sends no next request within the keep-alive timeout', async () => {
    const client = await keepAliveClient(t.port);
    await client.answers(1);
    const answered = Date.now();
    expect(client.received()).toMatch(/\r\nConnection: keep-alive\r\n/i);
    const closedAt = await client.closed;
    // 1 s of keep-alive and Node's 1 s of grace, seen by a sweep every 250 ms, on a busy jest worker.
    expect(closedAt - answered).toBeGreaterThanOrEqual(1900);
    expect(closedAt - answered).toBeLessThan(4000);
  });

  it('keeps a keep-alive connection open while requests keep coming within the timeout', async () => {
    const client = await keepAliveClient(t.port);
    // Five requests 600 ms apart: 2.4 s on one connection, each gap within the 1 s keep-alive.
    for (let i = 1; i <= 5; i++) {
      await client.answers(i);
      if (i < 5) await new Promise((r) => setTimeout(r, 600));
    }
    expect(client.isClosed()).toBe(false);
    client.socket.destroy();
  });

  it('closes a connection whose headers trickle in', async () => {
    const answer = await rawRequest(t.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', { feed: trickle('X-A: b\r\n', 200), timeoutMs: 10_000 });
    expect(answer.closed).toBe(true);
    expect(answer.ms).toBeLessThan(2500);
  });
});

// A big body that keeps arriving is never cut by a short idle timeout. Its own app: the
// 2 s request timeout above is for the trickle tests, and a 20 MB body whose client and
// server share one busy jest worker can take longer than that without being idle once.
describe('Connection timeouts and big bodies (e2e)', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '60000', HTTP_IDLE_TIMEOUT_MS: '1000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' },
    });
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(() => t.close());

  it('still takes a 20 MB blob and a 20 MB deploy while its bytes keep arriving', async () => {
    const blob = Buffer.alloc(20 * MB, 7);
    await t
      .http()
      .put(`/v1/blobs/${sha(blob)}`)
      .set(bearer(token))
      .set('Content-Type', 'application/octet-stream')
      .send(blob)
      .expect(201);
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `f${i}.txt`, content: String(i).repeat(MB / String(i).length) }));
    await t.http().post('/v1/deployments').set(bearer(token)).send({ project_slug: 'big-one', files }).expect(201);
  });

  it('closes a connection whose client stops reading an answer, after the idle timeout', async () => {
    await deploySite(t, token, 'slow-reader', [{ path: 'big.txt', content: 'x'.repeat(16 * MB) }]);
    const serverSide = new Promise<Socket>((done) => {
      const onConnection = (socket: Socket) => {
        if (socket.remotePort !== client.localPort) return;
        t.server.off('connection', onConnection);
        done(socket);
      };
      t.server.on('connection', onConnection);
    });
    const client = connect(t.port, '127.0.0.1');
    client.on('error', () => undefined);
    await new Promise((done) => client.on('connect', done));
    // Never read: the answer fills the socket buffers and stops moving.
    client.pause();
    client.write(`GET /big.txt HTTP/1.1\r\nHost: ${siteHost(t, 'slow-reader')}\r\n\r\n`);
    const socket = await serverSide;
    const started = Date.now();
    await new Promise((done) => (socket.destroyed ? done(null) : socket.once('close', done)));
    expect(Date.now() - started).toBeLessThan(6000);
    client.destroy();
  });

  it('closes a connection that never sends a byte, after the headers timeout', async () => {
    const client = connect(t.port, '127.0.0.1');
    client.on('error', () => undefined);
    // Reading (nothing arrives) is what lets the client see the server's close.
    client.resume();
    const started = Date.now();
    await new Promise((done) => client.on('close', done));
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
