/**
 * npm run bench:analytics — 10 million site answers over 30 days for one project,
 * counted by the real AnalyticsRecorder (the router's `record`, a clock moved through
 * the 30 days, one flush per simulated hour: the same upserts and sketch merges the
 * flusher writes, without HTTP in front), the retention job's compaction of the long
 * tail, then `GET /projects/:id/analytics` for the
 * 30 days through the real API: p50/p95 (target p95 <= 50 ms), and the stored size
 * per project-day (hourly + daily rows, visitor sketches).
 *
 * Traffic shape: 300 pages (Zipf-like), 60 assets, 5 % 404s on 2,000 junk paths,
 * 8 % bots, 40 referring hosts, ~60,000 visitors a day out of a pool of 1.2 million.
 * Environment: ANALYTICS_BENCH_EVENTS (default 10000000), ANALYTICS_BENCH_ROUNDS (default 60).
 */
import 'reflect-metadata';

import type { IncomingMessage } from 'node:http';

import { DataSource } from 'typeorm';

import { AnalyticsRepository } from '../src/analytics/analytics.repository';
import { AnalyticsRecorder } from '../src/analytics/analytics-recorder.service';
import { AnalyticsRetention } from '../src/analytics/analytics-retention.service';
import { Clock } from '../src/common/time';
import { AppConfig } from '../src/config/app-config';
import { QuotaService } from '../src/quotas/quota.service';
import { SitePauses } from '../src/quotas/site-pauses.service';
import { api, percentile, startBenchApp } from './harness';

const EVENTS = Number(process.env.ANALYTICS_BENCH_EVENTS ?? 10_000_000);
const ROUNDS = Number(process.env.ANALYTICS_BENCH_ROUNDS ?? 60);
const DAYS = 30;
const TARGET_P95_MS = 50;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class MovableClock extends Clock {
  t = 0;
  now(): Date {
    return new Date(this.t);
  }
}

async function main(): Promise<void> {
  // The app's own recorder is off: this one, on a moved clock, does the counting.
  const app = await startBenchApp({ LOG_LEVEL: 'warn', ANALYTICS_FLUSH_SECONDS: '0' });
  try {
    const auth = { Authorization: `Bearer ${app.token}` };
    const project = await api(
      app.baseUrl,
      'POST',
      '/projects',
      { name: 'Busy site', slug: 'busy', type: 'static_site' },
      { Authorization: `Bearer ${app.jwt}`, 'X-Workspace-Id': app.workspaceId },
    );
    const projectId = project.id as string;
    const dataSource = app.app.get(DataSource);
    const clock = new MovableClock();
    const recorder = new AnalyticsRecorder(
      app.app.get(AppConfig),
      dataSource,
      new AnalyticsRepository(dataSource),
      clock,
      app.app.get(QuotaService),
      app.app.get(SitePauses),
    );

    const random = prng(14);
    const pages = Array.from({ length: 300 }, (_, i) => (i === 0 ? '/' : `/blog/post-${i}`));
    const assets = Array.from({ length: 60 }, (_, i) => `/assets/app-${i}.js`);
    const junk = Array.from({ length: 2000 }, (_, i) => `/wp-admin/x${i}.php`);
    const referrers = Array.from({ length: 40 }, (_, i) => `https://ref-${i}.example/item`);
    const agents = [
      'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36',
    ];
    const bot = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
    const zipf = (n: number) => Math.min(n - 1, Math.floor(n * random() ** 3));

    const end = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const start = end - DAYS * 86_400_000;
    const hours = DAYS * 24;
    const perHour = Math.ceil(EVENTS / hours);
    const ip = (req: IncomingMessage) => req.socket.remoteAddress!;
    clock.t = start;
    await recorder.flush(); // loads the first day's visitor key, as an instance's start does
    const started = performance.now();
    let recorded = 0;
    for (let h = 0; h < hours && recorded < EVENTS; h++) {
      const dayIndex = Math.floor(h / 24);
      for (let i = 0; i < perHour && recorded < EVENTS; i++, recorded++) {
        clock.t = start + h * 3_600_000 + Math.floor((i / perHour) * 3_600_000);
        const r = random();
        const isBot = r < 0.08;
        let url: string;
        let status = 200;
        let html = true;
        if (r < 0.13) {
          url = junk[zipf(junk.length)];
          status = 404;
        } else if (r < 0.45) {
          url = assets[zipf(assets.length)];
          html = false;
        } else url = pages[zipf(pages.length)];
        if (!isBot && html && status === 200 && random() < 0.2) status = 304;
        // 60,000 of a 1.2 million pool each day, so days overlap a little.
        const visitor = dayIndex * 40_000 + Math.floor(random() * 60_000);
        const req = {
          url: random() < 0.1 ? `${url}?utm_source=news` : url,
          method: 'GET',
          headers: {
            host: 'busy.localhost',
            'user-agent': isBot ? bot : agents[visitor % agents.length],
            referer: random() < 0.3 ? referrers[zipf(referrers.length)] : undefined,
          },
          socket: { remoteAddress: `10.${(visitor >> 16) & 255}.${(visitor >> 8) & 255}.${visitor & 255}` },
        } as unknown as IncomingMessage;
        recorder.record(projectId, req, status, html ? 4_000 : 30_000, html, ip);
      }
      await recorder.flush();
    }
    const recordMs = performance.now() - started;
    console.log(
      `\nbench:analytics — ${recorded.toLocaleString('en')} events over ${DAYS} days, recorded and flushed in ${(recordMs / 1000).toFixed(1)} s (${((recordMs * 1000) / recorded).toFixed(2)} µs per event, flushes included)`,
    );

    // What the retention job does to each completed hour and day (ANALYTICS_KEYS_KEPT), at once;
    // VACUUM FULL so the sizes below are what the kept rows take, not the freed space.
    const retention = app.app.get(AnalyticsRetention);
    const config = app.app.get(AppConfig);
    const t1 = performance.now();
    const folded =
      (await retention.compact('analytics_hourly', new Date(start), new Date(end), config.ANALYTICS_HOURLY_KEYS_KEPT)) +
      (await retention.compact(
        'analytics_daily',
        new Date(start).toISOString().slice(0, 10),
        new Date(end).toISOString().slice(0, 10),
        config.ANALYTICS_KEYS_KEPT,
      ));
    console.log(
      `compaction (top ${config.ANALYTICS_HOURLY_KEYS_KEPT} keys per hour, ${config.ANALYTICS_KEYS_KEPT} per day): ${folded.toLocaleString('en')} rows folded into (other) in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
    );
    await dataSource.query('VACUUM FULL ANALYZE analytics_hourly, analytics_daily, analytics_visitors');
    const from = new Date(start).toISOString();
    const to = new Date(end - 1).toISOString();
    const times: number[] = [];
    let body: Record<string, unknown> = {};
    for (let i = 0; i < ROUNDS + 5; i++) {
      const t0 = performance.now();
      body = await api(app.baseUrl, 'GET', `/projects/${projectId}/analytics?from=${from}&to=${to}&interval=day`, undefined, auth);
      if (i >= 5) times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    const hourly: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await api(app.baseUrl, 'GET', `/projects/${projectId}/analytics?from=${from}&to=${to}&interval=hour`, undefined, auth);
      hourly.push(performance.now() - t0);
    }
    hourly.sort((x, y) => x - y);
    const totals = body.totals as Record<string, number>;
    console.log(`totals: ${JSON.stringify(totals)}`);
    const p95 = percentile(times, 95);
    console.log(
      `30-day query by day (${ROUNDS} runs, over HTTP): p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (target <= ${TARGET_P95_MS} ms) ${p95 <= TARGET_P95_MS ? 'MET' : 'MISSED'}`,
    );
    console.log(`30-day query by hour (20 runs): p50 ${percentile(hourly, 50).toFixed(1)} ms, p95 ${percentile(hourly, 95).toFixed(1)} ms`);

    // Where a query's time goes: each statement alone (the service runs them in parallel).
    const day0 = from.slice(0, 10);
    const day1 = new Date(end).toISOString().slice(0, 10);
    const parts: [string, string][] = [
      [
        'series (total rows)',
        `SELECT day, sum(page_views), sum(requests) FROM analytics_daily WHERE project_id = $1 AND kind = 'total' AND day >= $2 AND day < $3 GROUP BY day`,
      ],
      [
        'top pages',
        `SELECT key, sum(page_views) AS n FROM analytics_daily WHERE project_id = $1 AND kind = 'page' AND day >= $2 AND day < $3 GROUP BY key ORDER BY n DESC LIMIT 10`,
      ],
      [
        'top 404s',
        `SELECT key, sum(requests) AS n FROM analytics_daily WHERE project_id = $1 AND kind = 'not_found' AND day >= $2 AND day < $3 GROUP BY key ORDER BY n DESC LIMIT 10`,
      ],
      ['sketches', `SELECT day, sketch FROM analytics_visitors WHERE project_id = $1 AND day >= $2 AND day < $3`],
    ];
    for (const [name, sql] of parts) {
      const t: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await dataSource.query(sql, [projectId, day0, day1]);
        t.push(performance.now() - t0);
      }
      t.sort((x, y) => x - y);
      console.log(`  ${name.padEnd(20)} p50 ${percentile(t, 50).toFixed(1)} ms`);
    }

    const sizes: { table: string; rows: string; bytes: string }[] = await dataSource.query(
      `SELECT t AS table, (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I', t), false, true, '')))[1]::text AS rows, pg_total_relation_size(t) AS bytes
       FROM unnest(ARRAY['analytics_hourly', 'analytics_daily', 'analytics_visitors']) AS t`,
    );
    let total = 0;
    for (const s of sizes) {
      total += Number(s.bytes);
      console.log(
        `  ${s.table.padEnd(20)} ${Number(s.rows).toLocaleString('en').padStart(10)} rows  ${(Number(s.bytes) / 1024 / 1024).toFixed(2).padStart(8)} MiB`,
      );
    }
    console.log(`stored per project-day: ${(total / DAYS / 1024).toFixed(1)} KiB (tables and indexes; hourly rows go after ANALYTICS_HOURLY_RETENTION_DAYS)`);
  } finally {
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
