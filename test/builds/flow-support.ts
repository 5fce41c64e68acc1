import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { bearer } from '../helpers/identity';

/**
 * Plumbing shared by the build flow suites (test/builds/flow*.e2e-spec.ts): an app whose
 * builds run as child processes, a small site whose build script is `node build.js`, the
 * build API as a user calls it, and a log read over real HTTP as it streams.
 */

/** The app as a developer runs it with builds on: the `process` runner (no sandbox), repositories on 127.0.0.1 allowed. */
export function startBuildApp(env: TestAppOptions['env'] = {}): Promise<TestApp> {
  return startTestApp({ env: { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true', ...env } });
}

export const TERMINAL = ['ready', 'failed', 'canceled', 'timed_out'] as const;

export interface BuildRecord {
  id: string;
  projectId: string;
  status: 'queued' | 'running' | 'ready' | 'failed' | 'canceled' | 'timed_out';
  trigger: 'manual' | 'push' | 'pull_request';
  ref: string;
  branch: string | null;
  commitSha: string | null;
  commitMessage: string | null;
  pullRequest: number | null;
  deploymentId: string | null;
  url: string | null;
  detected: {
    framework: string | null;
    packageManager: string | null;
    installCommand: string | null;
    buildCommand: string | null;
    outputDirectory: string;
  } | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  error: string | null;
}

/** A site as a user would push it: a package.json whose build script is `node build.js`, and a lock file so `npm ci` has nothing to fetch. */
export function nodeSite(buildJs: string, files: Record<string, string> = {}): Record<string, string> {
  return {
    'package.json': JSON.stringify({ name: 'flow-site', version: '1.0.0', private: true, scripts: { build: 'node build.js' } }, null, 2) + '\n',
    'package-lock.json':
      JSON.stringify(
        { name: 'flow-site', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'flow-site', version: '1.0.0' } } },
        null,
        2,
      ) + '\n',
    'build.js': buildJs,
    ...files,
  };
}

/** build.js of the plain site: dist/index.html from content.txt. */
export const RENDER_CONTENT = `const fs = require('node:fs');
const content = fs.readFileSync('content.txt', 'utf8').trim();
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', '<h1>' + content + '</h1>\\n');
console.log('rendered dist/index.html: ' + content);
`;

/** The plain site, showing `content`. */
export const contentSite = (content: string) => nodeSite(RENDER_CONTENT, { 'content.txt': `${content}\n` });

/** The build API of one project, as a token holder calls it. */
export function buildsApi(t: TestApp, token: string, projectId: string) {
  const auth = bearer(token);
  const base = `/projects/${projectId}`;
  return {
    connect: (body: Record<string, unknown>) => t.http().put(`${base}/git`).set(auth).send(body),
    settings: () => t.http().get(`${base}/git`).set(auth),
    disconnect: () => t.http().delete(`${base}/git`).set(auth),
    setEnv: (name: string, body: Record<string, unknown>) => t.http().put(`${base}/env/${name}`).set(auth).send(body),
    listEnv: () => t.http().get(`${base}/env`).set(auth),
    start: (body: Record<string, unknown> = {}) => t.http().post(`${base}/builds`).set(auth).send(body),
    list: (query = '') => t.http().get(`${base}/builds${query}`).set(auth),
    get: (buildId: string) => t.http().get(`${base}/builds/${buildId}`).set(auth),
    cancel: (buildId: string) => t.http().post(`${base}/builds/${buildId}/cancel`).set(auth),
    logs: (buildId: string) => t.http().get(`${base}/builds/${buildId}/logs`).set(auth),
    deployments: () => t.http().get(`${base}/deployments`).set(auth),
    deployment: (deploymentId: string) => t.http().get(`${base}/deployments/${deploymentId}`).set(auth),
    project: () => t.http().get(base).set(auth),

    /** POST /builds, expecting 202; the record. */
    async startOk(body: Record<string, unknown> = {}): Promise<BuildRecord> {
      const res = await t.http().post(`${base}/builds`).set(auth).send(body);
      if (res.status !== 202) throw new Error(`POST /builds: expected 202, got ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as BuildRecord;
    },

    /** The record once its status is one of `statuses` (default: any end), re-read until then. */
    async until(buildId: string, statuses: readonly string[] = TERMINAL, ms = 90_000): Promise<BuildRecord> {
      return eventually(async () => {
        const res = await t.http().get(`${base}/builds/${buildId}`).set(auth);
        if (res.status !== 200) throw new Error(`GET build ${buildId}: ${res.status} ${JSON.stringify(res.body)}`);
        const build = res.body as BuildRecord;
        if (!statuses.includes(build.status)) throw new Error(`build ${buildId} is ${build.status}, waiting for ${statuses.join('|')}`);
        return build;
      }, ms);
    },

    /** A build from POST to its end: the finished record and its whole log. */
    async run(body: Record<string, unknown> = {}): Promise<{ build: BuildRecord; log: string }> {
      const started = await this.startOk(body);
      const build = await this.until(started.id);
      const log = await t.http().get(`${base}/builds/${build.id}/logs`).set(auth);
      return { build, log: log.text };
    },
  };
}

export type BuildsApi = ReturnType<typeof buildsApi>;

/** A project made through the API (the build settings hang off it). */
export async function createProject(t: TestApp, token: string, slug: string): Promise<{ id: string; slug: string; url: string }> {
  const res = await t.http().post('/projects').set(bearer(token)).send({ name: slug, slug, type: 'static_site' });
  if (res.status !== 201) throw new Error(`create project ${slug}: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, slug: res.body.slug, url: t.config.siteUrl(res.body.slug) };
}

/** `<ISO-8601 timestamp> [<phase>] <text>`, the build log's line format. */
export const LOG_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) \[([a-z]+)\] (.*)$/;

export interface LogLine {
  at: Date;
  phase: string;
  text: string;
}

/** Every line of a log, parsed; a line that does not have the format fails the test. */
export function parseLog(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const m = LOG_LINE.exec(line);
      if (!m) throw new Error(`log line without "<timestamp> [<phase>] ": ${JSON.stringify(line)}`);
      return { at: new Date(m[1]), phase: m[2], text: m[3] };
    });
}

/** The phases in the order they first appear. */
export const phasesOf = (lines: LogLine[]) => [...new Set(lines.map((l) => l.phase))];

/**
 * GET …/logs?follow=1 over a raw HTTP connection, each chunk kept as it arrives, so a
 * test can see the log grow while the build runs and the answer end with it.
 */
export interface FollowedLog {
  status: Promise<number>;
  headers: Promise<IncomingMessage['headers']>;
  /** The chunks received so far, in order. */
  chunks: string[];
  text(): string;
  /** Resolves once the text received so far matches `pattern` (rejects if the answer ends first). */
  waitFor(pattern: RegExp): Promise<string>;
  /** Resolves with the whole text when the server ends the answer. */
  ended: Promise<string>;
  abort(): void;
}

export function followLog(t: TestApp, token: string, projectId: string, buildId: string): FollowedLog {
  const chunks: string[] = [];
  const waiters: { pattern: RegExp; resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  let done = false;
  let resolveStatus!: (n: number) => void;
  let resolveHeaders!: (h: IncomingMessage['headers']) => void;
  let resolveEnded!: (s: string) => void;
  let rejectEnded!: (e: Error) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const headers = new Promise<IncomingMessage['headers']>((r) => (resolveHeaders = r));
  const ended = new Promise<string>((res, rej) => ((resolveEnded = res), (rejectEnded = rej)));
  const text = () => chunks.join('');
  const check = () => {
    for (const w of [...waiters]) {
      if (w.pattern.test(text())) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(text());
      } else if (done) {
        waiters.splice(waiters.indexOf(w), 1);
        w.reject(new Error(`the log ended without ${w.pattern}:\n${text()}`));
      }
    }
  };
  const req = httpRequest(`${t.baseUrl}/projects/${projectId}/builds/${buildId}/logs?follow=1`, { headers: bearer(token) }, (res) => {
    resolveStatus(res.statusCode!);
    resolveHeaders(res.headers);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      chunks.push(chunk);
      check();
    });
    res.on('end', () => {
      done = true;
      check();
      resolveEnded(text());
    });
    res.on('error', (err) => rejectEnded(err));
  });
  req.on('error', (err) => {
    done = true;
    check();
    rejectEnded(err);
  });
  req.end();
  return {
    status,
    headers,
    chunks,
    text,
    ended,
    waitFor: (pattern) =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ pattern, resolve, reject });
        check();
      }),
    abort: () => req.destroy(),
  };
}

/**
 * A gate a build can wait at, over HTTP on 127.0.0.1 (the `process` runner shares the
 * host's network): `GET /wait/<name>` is answered only once the test opens `<name>`, so a
 * test decides when a build moves on instead of guessing how long it takes.
 */
export interface Gate {
  url(name: string): string;
  open(name: string): void;
  /** Names builds have waited at, in order. */
  readonly arrivals: string[];
  close(): Promise<void>;
}

export async function startGate(): Promise<Gate> {
  const opened = new Set<string>();
  const waiting = new Map<string, ServerResponse[]>();
  const arrivals: string[] = [];
  const server: Server = createServer((req, res) => {
    const name = /^\/wait\/([\w-]+)$/.exec(req.url ?? '')?.[1];
    if (!name) return void res.writeHead(404).end();
    arrivals.push(name);
    if (opened.has(name)) return void res.end('open');
    waiting.set(name, [...(waiting.get(name) ?? []), res]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (name) => `${base}/wait/${name}`,
    arrivals,
    open(name) {
      opened.add(name);
      for (const res of waiting.get(name) ?? []) res.end('open');
      waiting.delete(name);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** build.js lines that wait at a gate (Node's own fetch; the build has no dependencies). */
export const waitAtGate = (url: string) => `await fetch(${JSON.stringify(url)}).then((r) => r.text());`;

/** Whether a process is still alive (signal 0 checks without sending). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
