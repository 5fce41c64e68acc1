import type { Socket } from 'node:net';

import { LOOPBACK_RESERVE } from '../../src/common/connection-limits';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { closedUnanswered, connectFrom, exchange, head } from './raw-http';

jest.setTimeout(60_000);

/** Idle connections must outlive the test: only the caps may close them. */
const PATIENT = { HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '60000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000' };
const HEALTH = head('GET', '/health', {});

/**
 * Real sockets from distinct loopback addresses (127.0.0.x can be bound locally), so
 * each counts as its own client.
 */
describe('Connection caps (e2e)', () => {
  const sockets: Socket[] = [];
  const open = async (port: number, from: string) => {
    const socket = await connectFrom(port, from);
    sockets.push(socket);
    return socket;
  };
  /** A connection the server has accepted and counted: it answered a request on it. */
  const held = async (port: number, from: string) => {
    const socket = await open(port, from);
    expect((await exchange(socket, HEALTH)).status).toBe(200);
    return socket;
  };
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
  });

  describe('per client address', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { ...PATIENT, HTTP_MAX_CONNECTIONS_PER_ADDRESS: '5', HTTP_MAX_CONNECTIONS: '100' } });
    });
    afterAll(() => t.close());

    it('closes the newest connection past the cap at once and keeps the others', async () => {
      const first = [];
      for (let i = 0; i < 5; i++) first.push(await held(t.port, '127.0.0.2'));
      expect(await closedUnanswered(await open(t.port, '127.0.0.2'))).toBe(true);
      // The five it holds still work, on the same connections.
      for (const socket of first) expect(await exchange(socket, HEALTH)).toMatchObject({ status: 200, closed: false });
      // Another address is counted apart.
      for (let i = 0; i < 5; i++) await held(t.port, '127.0.0.3');
      // Once one of its connections closes, the address may open another.
      first[0].destroy();
      await eventually(async () => expect((await exchange(await open(t.port, '127.0.0.2'), HEALTH)).status).toBe(200));
      expect(await closedUnanswered(await open(t.port, '127.0.0.2'))).toBe(true);
      // Counted for the operator.
      const metrics = (await t.http().get('/metrics').expect(200)).text;
      const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(metrics)?.[1]);
      // Two refusals above, and any retry that came before the server saw the close.
      expect(value('statichost_connections_refused_total{reason="per_address"}')).toBeGreaterThanOrEqual(2);
      // Ten held, the one /metrics came on, and retries' connections not yet seen closing.
      expect(value('statichost_http_connections{kind="counted"}')).toBeGreaterThanOrEqual(11);
    });
  });

  describe('overall', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { ...PATIENT, HTTP_MAX_CONNECTIONS_PER_ADDRESS: '3', HTTP_MAX_CONNECTIONS: '6' } });
    });
    afterAll(() => t.close());

    it('keeps /health answering from loopback at the cap, refuses proxied requests there, and closes the newest once the reserve is full', async () => {
      const filling = [];
      for (const from of ['127.0.0.4', '127.0.0.5']) for (let i = 0; i < 3; i++) filling.push(await held(t.port, from));
      // At the cap: a direct local caller (a health check, the TLS ask) still gets in.
      const health = await open(t.port, '127.0.0.1');
      expect(await exchange(health, HEALTH)).toMatchObject({ status: 200, closed: false });
      // A request that a local proxy forwards for someone else does not take the reserve.
      const proxied = await exchange(await open(t.port, '127.0.0.6'), head('GET', '/health', { 'X-Forwarded-For': '203.0.113.9' }));
      expect(proxied).toMatchObject({ status: 503, closed: true });
      expect(JSON.parse(proxied.body)).toMatchObject({ code: 'service_unavailable' });
      // The reserve is bounded too (the health connection holds one place of it).
      for (let i = 1; i < LOOPBACK_RESERVE; i++) await eventually(() => held(t.port, `127.0.1.${i}`));
      expect(await closedUnanswered(await open(t.port, '127.0.0.7'))).toBe(true);
      expect(await exchange(health, HEALTH)).toMatchObject({ status: 200, closed: false });
      // A place freed under the cap takes any request again.
      filling[0].destroy();
      await eventually(async () => {
        const res = await exchange(await open(t.port, '127.0.0.8'), head('GET', '/health', { 'X-Forwarded-For': '203.0.113.9' }));
        expect(res.status).toBe(200);
      });
    });
  });

  describe('behind a trusted proxy', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { ...PATIENT, TRUST_PROXY: 'true', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '2', HTTP_MAX_CONNECTIONS: '100' } });
    });
    afterAll(() => t.close());

    it('does not cap the proxy’s address: every connection is the proxy’s', async () => {
      for (let i = 0; i < 5; i++) await held(t.port, '127.0.0.9');
    });
  });

  describe('behind a proxy named by its address', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { ...PATIENT, TRUST_PROXY: '127.0.0.9', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '2', HTTP_MAX_CONNECTIONS: '100' } });
    });
    afterAll(() => t.close());

    it('exempts the listed proxy and still caps every other peer', async () => {
      for (let i = 0; i < 5; i++) await held(t.port, '127.0.0.9');
      await held(t.port, '127.0.0.10');
      await held(t.port, '127.0.0.10');
      expect(await closedUnanswered(await open(t.port, '127.0.0.10'))).toBe(true);
    });
  });
});
