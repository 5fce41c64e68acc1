/**
 * npm run bench:builds — builds from Git, end to end (issue #28).
 *
 * Starts the app (the `process` runner, an embedded PostgreSQL unless DATABASE_URL is
 * set), a Git server (`git http-backend`, test/helpers/git-server.ts) and a counting
 * pass-through to the npm registry, then measures:
 *
 *  (a) POST /builds → the new content served at the project's address, for a site whose
 *      build script is `node build.js`, minus the build command's own time (the same
 *      `npm run build` timed in a checkout here). Goal: ≤ 2 s of platform overhead.
 *  (b) the same for a Vite site (real `vite` from the npm registry, installed by the
 *      build) whose dependency cache is warm (its second build). Goal: ≤ 15 s.
 *  (c) that second build, whose lock file did not change, fetches nothing from the
 *      registry: counted at the pass-through (the project's `npm_config_registry` env
 *      var points npm at it) and shown from the build's own log.
 *  (d) a signed GitHub push webhook of a new commit on a branch → that branch's preview
 *      alias serving the new commit (issue #29), for the same `node build.js` site, minus
 *      the build command's own time as in (a). Goal: ≤ 2 s of platform overhead.
 *
 * BENCH_RUNS (default 5) sets how many `node build.js` builds are timed.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

import { branchAlias } from '../src/shared/preview-alias';
import { forgeHeaders, githubPush } from '../test/forges-flow/forge-deliveries';
import { type GitServer, startGitServer } from '../test/helpers/git-server';
import { api, type BenchApp, percentile, startBenchApp } from './harness';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const VITE = process.env.BENCH_VITE_VERSION ?? '^7.0.0';
const run = promisify(execFile);

const NODE_SITE = {
  'package.json': JSON.stringify({ name: 'bench-site', version: '1.0.0', private: true, scripts: { build: 'node build.js' } }, null, 2) + '\n',
  'package-lock.json':
    JSON.stringify(
      { name: 'bench-site', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'bench-site', version: '1.0.0' } } },
      null,
      2,
    ) + '\n',
  'build.js': `const fs = require('node:fs');
const content = fs.readFileSync('content.txt', 'utf8').trim();
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', '<h1>' + content + '</h1>');
for (let i = 0; i < 20; i++) fs.writeFileSync('dist/page-' + i + '.html', '<p>' + content + ' ' + i + '</p>');
console.log('rendered 21 pages');
`,
  'content.txt': 'first\n',
};

const viteSite = (lock: string, label: string) => ({
  'package.json': viteManifest(),
  'package-lock.json': lock,
  'index.html':
    '<!doctype html>\n<html><head><title>bench</title></head><body><div id="app"></div><script type="module" src="/src/main.js"></script></body></html>\n',
  'src/main.js': `import './style.css';\ndocument.querySelector('#app').textContent = ${JSON.stringify(label)};\n`,
  'src/style.css': 'body { font-family: system-ui; color: #222 }\n',
});
const viteManifest = () =>
  JSON.stringify(
    { name: 'bench-vite', version: '1.0.0', private: true, type: 'module', scripts: { build: 'vite build' }, devDependencies: { vite: VITE } },
    null,
    2,
  ) + '\n';

/** The Vite site's lock file, resolved by npm from the registry as a user's `npm install` would. */
async function viteLock(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-vite-lock-'));
  try {
    await writeFile(join(dir, 'package.json'), viteManifest());
    await run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir });
    const { readFile } = await import('node:fs/promises');
    return await readFile(join(dir, 'package-lock.json'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A pass-through to registry.npmjs.org that counts what npm asks for. */
async function startCountingRegistry(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const headers: Record<string, string> = {};
    for (const name of ['accept', 'npm-command', 'user-agent', 'if-none-match', 'if-modified-since']) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    fetch(`https://registry.npmjs.org${req.url}`, { method: req.method, headers, redirect: 'manual' })
      .then((upstream) => {
        const out: Record<string, string> = {};
        for (const name of ['content-type', 'etag', 'last-modified', 'cache-control']) {
          const v = upstream.headers.get(name);
          if (v) out[name] = v;
        }
        res.writeHead(upstream.status, out);
        if (upstream.body) Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream).pipe(res);
        else res.end();
      })
      .catch((err: Error) => res.writeHead(502).end(err.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** GET / of a site with its Host header (Node's fetch cannot set one). */
function siteBody(app: BenchApp, slug: string, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, path, headers: { Host: `${slug}.${app.config.SITES_DOMAIN}:${app.port}` } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(res.statusCode === 200 ? body : ''));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Build {
  id: string;
  status: string;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  detected: unknown;
}

interface Timed {
  /** POST /builds → the new content served, ms. */
  toLive: number;
  build: Build;
  log: string;
  /** ms from each phase's first log line to the next phase's (the last phase: to its own last line). */
  phases: Record<string, number>;
}

function phaseSpans(log: string): Record<string, number> {
  const lines = log
    .split('\n')
    .map((l) => /^(\S+) \[([a-z]+)\] /.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ at: Date.parse(m[1]), phase: m[2] }));
  const firsts: { phase: string; at: number }[] = [];
  for (const l of lines) if (!firsts.some((f) => f.phase === l.phase)) firsts.push(l);
  const spans: Record<string, number> = {};
  firsts.forEach((f, i) => (spans[f.phase] = (firsts[i + 1]?.at ?? lines[lines.length - 1].at) - f.at));
  return spans;
}

/** Whether the site at `slug` serves `text`: in its page, or for a Vite site in the script the page loads. */
async function serves(app: BenchApp, slug: string, text: string): Promise<boolean> {
  const page = await siteBody(app, slug);
  if (page.includes(text)) return true;
  const script = /<script[^>]+src="([^"]+)"/.exec(page)?.[1];
  return script !== undefined && script.startsWith('/') && (await siteBody(app, slug, script)).includes(text);
}

async function timedBuild(app: BenchApp, projectId: string, slug: string, expect: string, wait = 300_000): Promise<Timed> {
  const auth = { Authorization: `Bearer ${app.token}` };
  const t0 = performance.now();
  const started = (await api(app.baseUrl, 'POST', `/projects/${projectId}/builds`, {}, auth)) as unknown as Build;
  let toLive = NaN;
  for (;;) {
    if (await serves(app, slug, expect)) {
      toLive = performance.now() - t0;
      break;
    }
    const now = (await api(app.baseUrl, 'GET', `/projects/${projectId}/builds/${started.id}`, undefined, auth)) as unknown as Build;
    if (['failed', 'canceled', 'timed_out'].includes(now.status) || performance.now() - t0 > wait) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  // The record and the log are complete once the build has ended (a moment after the site went live).
  let build: Build;
  for (;;) {
    build = (await api(app.baseUrl, 'GET', `/projects/${projectId}/builds/${started.id}`, undefined, auth)) as unknown as Build;
    if (!['queued', 'running'].includes(build.status) || performance.now() - t0 > wait) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const log = await (await fetch(`${app.baseUrl}/projects/${projectId}/builds/${started.id}/logs`, { headers: auth })).text();
  if (Number.isNaN(toLive)) throw new Error(`build ${build.id} ended ${build.status}: ${build.error}\n${log}`);
  return { toLive, build, log, phases: phaseSpans(log) };
}

/**
 * A push of a new commit to `branch`, delivered as GitHub sends it (signed with the
 * project's webhook secret) → the branch's alias serving `expect`.
 */
async function timedHook(
  app: BenchApp,
  hook: { projectId: string; slug: string; secret: string; repository: string },
  branch: string,
  sha: string,
  expect: string,
  wait = 300_000,
): Promise<number> {
  const body = Buffer.from(JSON.stringify(githubPush(hook.repository, branch, sha, expect)));
  const headers = { ...forgeHeaders('github', 'push', body, hook.secret, randomUUID()), 'Content-Type': 'application/json' };
  const alias = branchAlias(branch, hook.slug);
  const t0 = performance.now();
  const res = await fetch(`${app.baseUrl}/hooks/git/${hook.projectId}`, { method: 'POST', headers, body });
  const answer = (await res.json()) as { build?: { id: string } };
  if (res.status !== 202 || !answer.build) throw new Error(`webhook: ${res.status} ${JSON.stringify(answer)}`);
  const auth = { Authorization: `Bearer ${app.token}` };
  const read = async () => (await api(app.baseUrl, 'GET', `/projects/${hook.projectId}/builds/${answer.build!.id}`, undefined, auth)) as unknown as Build;
  let toAlias: number;
  for (;;) {
    if (await serves(app, alias, expect)) {
      toAlias = performance.now() - t0;
      break;
    }
    const now = await read();
    if (['failed', 'canceled', 'timed_out'].includes(now.status) || performance.now() - t0 > wait)
      throw new Error(`build ${now.id} of the webhook ended ${now.status}: ${now.error}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // The build record ends a moment after the alias moved; the next push must not meet it (one build at a time on the free plan).
  while (['queued', 'running'].includes((await read()).status) && performance.now() - t0 < wait) await new Promise((r) => setTimeout(r, 50));
  return toAlias;
}

async function project(app: BenchApp, slug: string, git: GitServer, repo: string, settings: object, env: Record<string, string> = {}) {
  const auth = { Authorization: `Bearer ${app.token}` };
  const created = await api(app.baseUrl, 'POST', '/projects', { name: slug, slug, type: 'static_site' }, auth);
  const id = created.id as string;
  await api(app.baseUrl, 'PUT', `/projects/${id}/git`, { repository: git.url(repo), productionBranch: 'main', ...settings }, auth);
  for (const [name, value] of Object.entries(env))
    await api(app.baseUrl, 'PUT', `/projects/${id}/env/${name}`, { value, targets: ['production', 'preview'] }, auth);
  return id;
}

/** `npm run build` of the node site in a checkout here, ms (median of RUNS): the build command's own time. */
async function commandTime(git: GitServer): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-build-cmd-'));
  try {
    await run('git', ['clone', '-q', git.url('node-site'), join(dir, 'site')]);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await run('npm', ['run', 'build'], { cwd: join(dir, 'site') });
      times.push(performance.now() - t0);
    }
    return percentile(
      times.sort((a, b) => a - b),
      50,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

async function main(): Promise<void> {
  const loadBefore = loadavg()[0].toFixed(1);
  const [git, registry, lock] = await Promise.all([startGitServer(), startCountingRegistry(), viteLock()]);
  // The process runner is refused under NODE_ENV=production (the harness's default).
  const app = await startBenchApp({ NODE_ENV: 'development', LOG_LEVEL: 'error', BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' });
  const rows: { measure: string; goal: string; measured: string; met: string }[] = [];
  try {
    // (a) node build.js
    git.createRepo('node-site', NODE_SITE);
    const nodeId = await project(app, 'bench-node', git, 'node-site', { outputDirectory: 'dist' });
    const first = await timedBuild(app, nodeId, 'bench-node', 'first');
    const runs: (Timed & { cmd: number })[] = [];
    for (let i = 0; i < RUNS; i++) {
      git.commit('node-site', { 'content.txt': `run ${i}\n` }, { message: `run ${i}` });
      const timed = await timedBuild(app, nodeId, 'bench-node', `run ${i}`);
      runs.push({ ...timed, cmd: await commandTime(git) });
    }
    const cmd = median(runs.map((r) => r.cmd));
    const toLive = median(runs.map((r) => r.toLive));
    const overhead = median(runs.map((r) => r.toLive - r.cmd));
    const phaseNames = [...new Set(runs.flatMap((r) => Object.keys(r.phases)))];
    console.log(
      `\n(a) node build.js: first build ${s(first.toLive)}; ${RUNS} more, POST /builds → live, median ${s(toLive)}; \`npm run build\` alone here: ${s(cmd)}`,
    );
    console.table(
      Object.fromEntries(
        runs.map((r, i) => [
          `run ${i}`,
          {
            'to live': s(r.toLive),
            'npm run build here': s(r.cmd),
            queued: s(Date.parse(r.build.startedAt!) - Date.parse(r.build.createdAt)),
            ...Object.fromEntries(phaseNames.map((p) => [p, r.phases[p] === undefined ? '-' : s(r.phases[p])])),
          },
        ]),
      ),
    );
    rows.push({
      measure: '(a) node build.js: POST /builds → live, minus the command',
      goal: '≤ 2 s',
      measured: s(overhead),
      met: overhead <= 2000 ? 'MET' : 'MISSED',
    });

    // (d) webhook → alias. The Git host's URL needs an owner/repo path, as every forge's has.
    const hookRepo = 'bench/hook-site';
    git.createRepo(hookRepo, NODE_SITE);
    const hookId = await project(app, 'bench-hook', git, hookRepo, { outputDirectory: 'dist' });
    const rotated = await api(app.baseUrl, 'POST', `/projects/${hookId}/git/webhook-secret`, undefined, { Authorization: `Bearer ${app.token}` });
    const hook = { projectId: hookId, slug: 'bench-hook', secret: rotated.secret as string, repository: git.url(hookRepo) };
    // The first build of a branch makes its alias; the timed ones move it, as every later push does.
    await timedHook(app, hook, 'preview', git.commit(hookRepo, { 'content.txt': 'hook first\n' }, { branch: 'preview' }), 'hook first');
    const hookRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const sha = git.commit(hookRepo, { 'content.txt': `hook ${i}\n` }, { branch: 'preview', message: `hook ${i}` });
      hookRuns.push(await timedHook(app, hook, 'preview', sha, `hook ${i}`));
    }
    const hookToAlias = median(hookRuns);
    const hookOverhead = hookToAlias - cmd;
    console.log(
      `\n(d) GitHub push webhook → ${branchAlias('preview', 'bench-hook')} serving the commit: ${hookRuns.map(s).join(', ')}; median ${s(hookToAlias)}, \`npm run build\` alone ${s(cmd)}`,
    );
    rows.push({
      measure: '(d) push webhook → branch alias serving the commit, minus the command',
      goal: '≤ 2 s',
      measured: s(hookOverhead),
      met: hookOverhead <= 2000 ? 'MET' : 'MISSED',
    });

    // (b) and (c) Vite, cold then warm
    git.createRepo('vite-site', viteSite(lock, 'vite one'));
    const viteId = await project(app, 'bench-vite', git, 'vite-site', {}, { npm_config_registry: registry.url });
    registry.requests.length = 0;
    const cold = await timedBuild(app, viteId, 'bench-vite', 'vite one');
    const coldRequests = registry.requests.length;
    git.commit(
      'vite-site',
      { 'src/main.js': `import './style.css';\ndocument.querySelector('#app').textContent = 'vite two';\n` },
      { message: 'change a page' },
    );
    registry.requests.length = 0;
    const warm = await timedBuild(app, viteId, 'bench-vite', 'vite two');
    const warmRequests = [...registry.requests];
    console.log(`\n(b) Vite ${VITE}: detected ${JSON.stringify(warm.build.detected)}`);
    console.table({
      'cold (first build)': {
        'to live': s(cold.toLive),
        'registry requests': coldRequests,
        ...Object.fromEntries(Object.entries(cold.phases).map(([p, v]) => [p, s(v)])),
      },
      'warm (lock unchanged)': {
        'to live': s(warm.toLive),
        'registry requests': warmRequests.length,
        ...Object.fromEntries(Object.entries(warm.phases).map(([p, v]) => [p, s(v)])),
      },
    });
    rows.push({
      measure: '(b) Vite, warm dependency cache: POST /builds → live',
      goal: '≤ 15 s',
      measured: s(warm.toLive),
      met: warm.toLive <= 15_000 ? 'MET' : 'MISSED',
    });

    const installLines = warm.log.split('\n').filter((l) => / \[(install|detect)\] /.test(l));
    console.log('\n(c) the warm build’s install, from its log:');
    for (const line of installLines.slice(0, 30)) console.log(`    ${line}`);
    if (warmRequests.length) console.log(`    registry requests during it: ${warmRequests.slice(0, 10).join(', ')}${warmRequests.length > 10 ? ', …' : ''}`);
    const downloadLines = installLines.filter((l) => /\bGET \d{3}\b|http fetch|fetching|downloading|added \d+ packages? .*from the registry/i.test(l));
    rows.push({
      measure: '(c) 2nd Vite build, lock unchanged: registry requests (cold build: ' + coldRequests + ')',
      goal: '0',
      measured: String(warmRequests.length),
      met: warmRequests.length === 0 && coldRequests > 0 ? 'MET' : 'MISSED',
    });
    rows.push({
      measure: '(c) … its log: download lines / cache restored',
      goal: '0 / yes',
      measured: `${downloadLines.length} / ${installLines.some((l) => /restor.*cache|cache.*restor/i.test(l)) ? 'yes' : 'no'}`,
      met: downloadLines.length === 0 && installLines.some((l) => /restor.*cache|cache.*restor/i.test(l)) ? 'MET' : 'MISSED',
    });
  } finally {
    await app.close();
    await git.close();
    await registry.close();
  }
  console.log(
    `\nbench:builds — process runner, app, PostgreSQL, Git server and registry pass-through on this machine (${cpus().length} cores; load average ${loadBefore} before, ${loadavg()[0].toFixed(1)} after)`,
  );
  // Measured in another order (the webhook's after the node site's), shown by letter.
  console.table([...rows].sort((x, y) => x.measure.slice(0, 3).localeCompare(y.measure.slice(0, 3))));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
