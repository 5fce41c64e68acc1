/**
 * One server under test for bench:api, run as its own process so it can be pinned
 * to a core (wrk and the bench's own bookkeeping run elsewhere):
 *
 * - `statichost`: the real app on a real PostgreSQL, seeded with SEED_PROJECTS projects
 *   (one deployment each) and SEED_DEPLOYMENTS deployments of one project;
 * - `bare`: a bare NestJS app on the same adapter (platform-express) answering the same
 *   paths with the same JSON bodies (BENCH_BODIES, captured from the real app).
 *
 * Prints one JSON line `{ready, port, ...}` on stdout when it accepts connections.
 * With BENCH_CPU_PROF=<dir> (or BENCH_HEAP_PROF=<dir>, BENCH_PAUSES=1) each target profiles its measured runs, between SIGUSR2 and SIGUSR1 (see profileOnSignal).
 */
import 'reflect-metadata';

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

import { Body, Controller, Get, HttpCode, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

import { api, freePort, profileOnSignal, startBenchApp } from './harness';

const kind = process.argv[2];
const SEED_PROJECTS = Number(process.env.SEED_PROJECTS ?? 300);
const SEED_DEPLOYMENTS = Number(process.env.SEED_DEPLOYMENTS ?? 300);
const SEED_CONCURRENCY = 4;

async function inBatches(n: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

async function statichost(): Promise<void> {
  const app = await startBenchApp({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' });
  const auth = { Authorization: `Bearer ${app.token}` };
  const files = (i: number) => [{ path: 'index.html', content: `<p>bench ${i}</p>` }];
  await inBatches(SEED_DEPLOYMENTS, (i) => api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench-history', files: files(i) }, auth));
  await inBatches(SEED_PROJECTS - 1, (i) => api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: `bench-${i}`, files: files(i) }, auth));
  const list = await api(app.baseUrl, 'GET', '/projects?limit=100', undefined, auth);
  const total = (list.meta as { total: number }).total;
  const all: { id: string; slug: string }[] = [];
  for (let page = 1; all.length < total; page++) {
    const got = await api(app.baseUrl, 'GET', `/projects?limit=100&page=${page}`, undefined, auth);
    all.push(...(got.data as { id: string; slug: string }[]));
  }
  const projectId = all.find((p) => p.slug === 'bench-history')!.id;
  process.stdout.write(
    `${JSON.stringify({ ready: true, port: app.port, token: app.token, jwt: app.jwt, workspaceId: app.workspaceId, projectId, projects: total })}\n`,
  );
  await profileHooks();
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Both targets profile alike, so the app's profile can be read against the bare app's. */
async function profileHooks(): Promise<void> {
  if (process.env.BENCH_CPU_PROF) await profileOnSignal(process.env.BENCH_CPU_PROF, kind);
  else if (process.env.BENCH_HEAP_PROF) await heapProfileOnSignal(process.env.BENCH_HEAP_PROF);
  else if (process.env.BENCH_PAUSES) pausesOnSignal();
}

/**
 * Where the app's own tail comes from, for the measured runs (same signals): the event
 * loop's delay (p50, p99, max) and the garbage collector's pauses (count, total, max, by
 * kind), printed on stderr as one JSON line.
 */
function pausesOnSignal(): void {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const gcs: { kind: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push({ kind: (entry as PerformanceEntry & { detail: { kind: number } }).detail.kind, ms: entry.duration });
  });
  process.on('SIGUSR2', () => {
    gcs.length = 0;
    delay.reset();
    delay.enable();
    observer.observe({ entryTypes: ['gc'] });
  });
  process.on('SIGUSR1', () => {
    delay.disable();
    observer.disconnect();
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const byKind = (kind: number) => gcs.filter((g) => g.kind === kind).map((g) => g.ms);
    const summary = (list: number[]) => ({
      n: list.length,
      totalMs: Math.round(list.reduce((a, b) => a + b, 0)),
      maxMs: Math.round(Math.max(0, ...list) * 10) / 10,
    });
    const line = {
      loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      gc: {
        minor: summary(byKind(constants.NODE_PERFORMANCE_GC_MINOR)),
        major: summary(byKind(constants.NODE_PERFORMANCE_GC_MAJOR)),
        incremental: summary(byKind(constants.NODE_PERFORMANCE_GC_INCREMENTAL)),
      },
      heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
    };
    process.stderr.write(`pauses ${kind} ${JSON.stringify(line)}\n`);
  });
}

/** Like profileOnSignal, but a sampling heap profile (`<dir>/<time>.heapprofile`): every allocation, not only what survives. */
async function heapProfileOnSignal(dir: string): Promise<void> {
  const session = new Session();
  session.connect();
  process.on(
    'SIGUSR2',
    () =>
      void session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      }),
  );
  process.on('SIGUSR1', () => {
    void session
      .post('HeapProfiler.stopSampling')
      .then(({ profile }) => writeFileSync(join(dir, `${kind}-${Date.now()}.heapprofile`), JSON.stringify(profile)));
  });
}

/** The paths the bench calls, each answering the body the real app gave. */
async function bare(): Promise<void> {
  const bodies = JSON.parse(process.env.BENCH_BODIES ?? '{}') as Record<string, unknown>;

  @Controller()
  class BareController {
    @Get('v1/me')
    me() {
      return bodies.me;
    }

    @Get('workspaces')
    workspaces() {
      return bodies.workspaces;
    }

    @Get('projects')
    projects() {
      return bodies.projects;
    }

    @Get('projects/:projectId/deployments')
    deployments(@Param('projectId') _projectId: string) {
      return bodies.deployments;
    }

    @Post('v1/deployments')
    @HttpCode(201)
    deploy(@Body() _body: unknown) {
      return bodies.deploy;
    }
  }

  @Module({ controllers: [BareController] })
  class BareModule {}

  const app = await NestFactory.create<NestExpressApplication>(BareModule, { logger: false });
  const port = await freePort();
  await app.listen(port, '127.0.0.1');
  await profileHooks();
  process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

(kind === 'statichost' ? statichost() : bare()).catch((err) => {
  console.error(err);
  process.exit(1);
});
