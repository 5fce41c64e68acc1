import type { IncomingMessage } from 'node:http';

import { AnalyticsRecorder, MAX_PATHS_PER_FLUSH, MAX_REFERRERS_PER_FLUSH } from '../../src/analytics/analytics-recorder.service';
import { OTHER_PATH } from '../../src/analytics/traffic';
import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, registerUser, type UserSession } from '../helpers/identity';

/** The recorder's own bookkeeping (per project and hour, between flushes), written through the real database. */

const HOUR = 3_600_000;
const ASSET = 'application/octet-stream';

describe('Analytics recorder: what a flush writes (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let recorder: AnalyticsRecorder;
  /** The app's clock, moved by the tests (as the other suites move it). */
  let now = Date.parse('2026-11-20T10:15:00Z');

  const project = async (slug: string): Promise<string> =>
    (await t.http().post('/projects').set(asUser(owner)).send({ name: slug, slug, type: 'static_site' }).expect(201)).body.id;
  /** One answer of 100 bytes (not a page view: the visitor keys play no part here). */
  const hit = (projectId: string, url: string, status = 200) =>
    recorder.record(
      projectId,
      {
        url,
        method: 'GET',
        headers: { host: 'x.localhost', 'user-agent': 'Mozilla/5.0 RecorderTest/1.0', accept: ASSET },
        socket: {},
      } as unknown as IncomingMessage,
      status,
      100,
      false,
      () => '203.0.113.9',
    );
  const rows = (table: 'analytics_hourly' | 'analytics_daily', projectId: string, kind: string): Promise<{ t: string; key: string; requests: number }[]> =>
    t.dataSource.query(
      `SELECT ${table === 'analytics_hourly' ? `to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"')` : 'day::text'} AS t, key, sum(requests)::int AS requests FROM ${table}
       WHERE project_id = $1 AND kind = $2 GROUP BY 1, 2 ORDER BY 1, 2`,
      [projectId, kind],
    );

  beforeAll(async () => {
    t = await startTestApp({ env: { ANALYTICS_FLUSH_SECONDS: '0', ANALYTICS_RETENTION_INTERVAL_SECONDS: '0' } });
    owner = await registerUser(t);
    // The app's own recorder (its timer is off: ANALYTICS_FLUSH_SECONDS=0), on a clock the tests move.
    recorder = t.app.get(AnalyticsRecorder);
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it(`counts at most ${MAX_PATHS_PER_FLUSH} distinct paths of a project per hour and flush, the rest under ${OTHER_PATH}; totals stay exact`, async () => {
    const id = await project('many-paths');
    for (let i = 0; i < MAX_PATHS_PER_FLUSH + 3; i++) hit(id, `/p/${i}`);
    hit(id, '/p/0?utm_source=mail'); // another target, the same path
    hit(id, '/p/9999'); // past the limit too
    await recorder.flush();

    const paths = await rows('analytics_hourly', id, 'path');
    expect(paths).toHaveLength(MAX_PATHS_PER_FLUSH + 1);
    expect(paths.find((r) => r.key === '/p/0')).toMatchObject({ requests: 2 });
    expect(paths.find((r) => r.key === OTHER_PATH)).toMatchObject({ requests: 4 });
    expect(await rows('analytics_hourly', id, 'total')).toEqual([{ t: '2026-11-20T10:00Z', key: '', requests: MAX_PATHS_PER_FLUSH + 5 }]);
    expect(await rows('analytics_daily', id, 'total')).toEqual([{ t: '2026-11-20', key: '', requests: MAX_PATHS_PER_FLUSH + 5 }]);
  });

  it('keeps at most 512 characters of a user agent in its memos: a client sending new 16 KB ones holds no 16 KB per entry', async () => {
    const id = await project('long-agents');
    const memo = recorder as unknown as { seen: Set<string>; bots: Map<string, boolean> };
    // A flush loads the day's visitor key: without it no visitor is counted (nor memoised).
    await recorder.flush();
    for (let i = 0; i < 20; i++) {
      recorder.record(
        id,
        {
          url: '/',
          method: 'GET',
          headers: { host: 'x.localhost', 'user-agent': `Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 ${i} ${'x'.repeat(16_000)}`, accept: 'text/html' },
          socket: {},
        } as unknown as IncomingMessage,
        200,
        100,
        true,
        () => `203.0.113.${i}`,
      );
    }
    const mine = [...memo.seen].filter((k) => k.startsWith(id));
    expect(mine).toHaveLength(20);
    expect(Math.max(...mine.map((k) => k.length))).toBeLessThan(600);
    expect(Math.max(...[...memo.bots.keys()].map((k) => k.length))).toBeLessThanOrEqual(512);
    await recorder.flush();
  });

  it(`counts at most ${MAX_REFERRERS_PER_FLUSH} distinct referring hosts of a project per hour and flush, the rest under ${OTHER_PATH}`, async () => {
    const id = await project('many-referrers');
    const view = (referer: string) =>
      recorder.record(
        id,
        {
          url: '/',
          method: 'GET',
          headers: { host: 'x.localhost', 'user-agent': 'Mozilla/5.0 RecorderTest/1.0', accept: 'text/html', referer },
          socket: {},
        } as unknown as IncomingMessage,
        200,
        100,
        true,
        () => '203.0.113.9',
      );
    for (let i = 0; i < MAX_REFERRERS_PER_FLUSH + 3; i++) view(`https://r${i}.example/`);
    view('https://r0.example/again'); // a host already counted
    await recorder.flush();

    const referrers = await rows('analytics_hourly', id, 'referrer');
    expect(referrers).toHaveLength(MAX_REFERRERS_PER_FLUSH + 1);
    expect(referrers.find((r) => r.key === 'r0.example')).toMatchObject({ requests: 2 });
    expect(referrers.find((r) => r.key === OTHER_PATH)).toMatchObject({ requests: 3 });
  });

  it('keeps the counts of a flush that failed and writes them once with what came since', async () => {
    const id = await project('retried');
    hit(id, '/a');
    hit(id, '/missing', 404);
    // The database refuses every new hourly row: the flush's transaction fails as a whole.
    await t.dataSource.query('ALTER TABLE analytics_hourly ADD CONSTRAINT recorder_test_refuse CHECK (requests < 0) NOT VALID');
    try {
      await expect(recorder.flush()).rejects.toThrow(/recorder_test_refuse/);
    } finally {
      await t.dataSource.query('ALTER TABLE analytics_hourly DROP CONSTRAINT recorder_test_refuse');
    }
    expect(await rows('analytics_hourly', id, 'path')).toEqual([]);
    hit(id, '/a');
    hit(id, '/missing', 404);
    await recorder.flush();

    expect(await rows('analytics_hourly', id, 'path')).toEqual([
      { t: '2026-11-20T10:00Z', key: '/a', requests: 2 },
      { t: '2026-11-20T10:00Z', key: '/missing', requests: 2 },
    ]);
    expect(await rows('analytics_hourly', id, 'not_found')).toEqual([{ t: '2026-11-20T10:00Z', key: '/missing', requests: 2 }]);
    expect(await rows('analytics_daily', id, 'total')).toEqual([{ t: '2026-11-20', key: '', requests: 4 }]);
  });

  it('counts a project’s first target, its other status classes and the same path asked another way in the same rows', async () => {
    const id = await project('first-target');
    hit(id, '/a?ref=1'); // the project's first target: its row is kept inline
    hit(id, '/a?ref=1');
    hit(id, '/a?ref=1', 404); // the same target, another status class
    hit(id, '/a'); // another target, the same path and class as the first
    hit(id, '/a?ref=1');
    hit(id, '/b');
    await recorder.flush();

    const byClass = await t.dataSource.query(
      `SELECT key, status_class, requests::int AS requests FROM analytics_hourly WHERE project_id = $1 AND kind = 'path' ORDER BY key, status_class`,
      [id],
    );
    expect(byClass).toEqual([
      { key: '/a', status_class: 2, requests: 4 },
      { key: '/a', status_class: 4, requests: 1 },
      { key: '/b', status_class: 2, requests: 1 },
    ]);
    expect(await rows('analytics_hourly', id, 'not_found')).toEqual([{ t: '2026-11-20T10:00Z', key: '/a', requests: 1 }]);
  });

  it('writes each hour’s counts under their own hour when an hour ends between two flushes, or the clock is set back', async () => {
    const one = await project('hours-one');
    const two = await project('hours-two');
    now = Date.parse('2026-11-20T12:59:00Z');
    hit(one, '/x');
    now += 2 * 60_000; // 13:01
    hit(one, '/x');
    hit(one, '/x');
    hit(two, '/y');
    now -= HOUR; // 12:01: a clock set back
    hit(one, '/x');
    hit(two, '/y');
    await recorder.flush();

    expect(await rows('analytics_hourly', one, 'path')).toEqual([
      { t: '2026-11-20T12:00Z', key: '/x', requests: 2 },
      { t: '2026-11-20T13:00Z', key: '/x', requests: 2 },
    ]);
    expect(await rows('analytics_hourly', two, 'path')).toEqual([
      { t: '2026-11-20T12:00Z', key: '/y', requests: 1 },
      { t: '2026-11-20T13:00Z', key: '/y', requests: 1 },
    ]);
    expect(await rows('analytics_daily', one, 'path')).toEqual([{ t: '2026-11-20', key: '/x', requests: 4 }]);
  });
});
