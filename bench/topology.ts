/**
 * npm run bench:topology — the service as it runs past one machine, with instances dying
 * under load (issue 26, "Proof at scale"): one PostgreSQL (embedded, started here, unless
 * DATABASE_URL is set), one object store (the local driver on a DATA_DIR the instances
 * share, which also shares the generated secrets), three app instances built and started
 * the way `npm start` runs them (scripts/build.js, then dist/src/main.js), and Caddy in
 * front with `reverse_proxy` to the three (active and passive health checks, retries on
 * another instance). Mixed load from this process for BENCH_SECONDS (default 300): site
 * reads (SITE_RPS, default 200/s), API reads (API_RPS, 20/s) and deploys with an
 * `Idempotency-Key` (DEPLOY_CONCURRENCY loops, default 2), while every KILL_EVERY_SECONDS
 * (30) one instance, in turn, is killed with SIGKILL and started again at once.
 *
 * Goals (issue 26): 0 failed site reads at the proxy; every deploy acknowledged, none
 * lost and none done twice; p99 of site reads during a kill (the KILL_WINDOW_SECONDS, 5,
 * after each) <= 1 s. A missed goal exits 1.
 *
 * What Caddy retries, and why the deploys are retried by the client instead: see the
 * comments of caddyfile() below. RESTART_DELAY_SECONDS (0) keeps a killed instance down
 * that long before starting it again (its start-up then falls outside the kill window:
 * on a 2-core machine it takes CPU from the survivors, which on their own machines it
 * would not); RESTART_NICE=<n> starts it at that niceness instead. BENCH_SAMPLES=<file> writes every read's time, latency
 * and outcome, and the kills' times, there as JSON.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { freePort, have, percentile } from './harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { build, buildWeb } = require('../scripts/build') as { build(o: { quiet: boolean }): void; buildWeb(o: { quiet: boolean }): void };

const SECONDS = Number(process.env.BENCH_SECONDS ?? 300);
const KILL_EVERY = Number(process.env.KILL_EVERY_SECONDS ?? 30);
const KILL_WINDOW_MS = Number(process.env.KILL_WINDOW_SECONDS ?? 5) * 1000;
const SITE_RPS = Number(process.env.SITE_RPS ?? 100);
const API_RPS = Number(process.env.API_RPS ?? 10);
const DEPLOY_CONCURRENCY = Number(process.env.DEPLOY_CONCURRENCY ?? 2);
/** How long a killed instance stays down before it is started again (0: at once). */
const RESTART_DELAY_MS = Number(process.env.RESTART_DELAY_SECONDS ?? 0) * 1000;
/** Niceness of a restarted instance (0: as the others): its start-up then yields the CPU to the survivors, as on a machine of its own. */
const RESTART_NICE = Number(process.env.RESTART_NICE ?? 0);
const INSTANCES = 3;
/** Requests in flight past which a tick sends nothing (and counts it): the load is paced, not piled up. */
const MAX_IN_FLIGHT = 256;
/** After the load stops, how long deploys still being retried get to be acknowledged. */
const DRAIN_MS = Number(process.env.DRAIN_SECONDS ?? 60) * 1000;
const SITES_DOMAIN = 'sites.test';
const API_HOST = 'api.test';
const ROOT = join(__dirname, '..');

interface Instance {
  port: number;
  child?: ChildProcess;
  starts: number;
}

interface Sample {
  /** When it was sent, ms since the load started. */
  t: number;
  ms: number;
  ok: boolean;
  detail?: string;
}

interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });

function request(port: number, method: string, path: string, headers: Record<string, string>, body?: string, timeoutMs = 30_000): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function json(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Record<string, unknown>> {
  const res = await request(
    port,
    method,
    path,
    { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body === undefined ? undefined : JSON.stringify(body),
  );
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${res.body}`);
  return res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {};
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Caddy (2.6+) in front of the instances.
 *
 * - Active checks: GET /health every second (it answers 503 when the instance's database
 *   or object store does not answer); an instance is out after one failed check and back
 *   after one good one. The timeout is generous (5 s): an instance that is slow because the
 *   machine is busy is still the best place for a request, and taking all three out at
 *   once (what a 1-s timeout did here under load) leaves Caddy nowhere to send anything.
 *   A dead instance is found by the passive check long before: one refused connection or
 *   reset (or a 5xx answer) takes it out for `fail_duration`, so the requests after a
 *   kill stop trying it at once.
 * - Retries: for `lb_try_duration` (30 s), every `lb_try_interval`, with no cap on the
 *   count (`lb_retries` would end the tries after that many, 5 × 50 ms = a quarter of a
 *   second here, before a restarted instance or a passing check could help). The duration
 *   counts from the request's arrival, not from the failure: a GET that waited 8 s at an
 *   overloaded instance that then died was answered 502 with 5 s (Caddy 2.6), so it must
 *   exceed the longest a request may spend at an instance. A request
 *   whose connection could not be made is always tried on another instance (nothing
 *   reached the app). A request that was sent and then lost its answer (the instance died
 *   while working on it) is retried only when `lb_retry_match` allows, by default GET
 *   only: site reads and API reads are GETs, so both kinds of failure are retried for
 *   them. Deploys (POST) are not retried once sent, nor when no instance is up at all
 *   (Caddy 2.6 retries only dial errors for them), on purpose: Caddy would have to keep
 *   every request body (up to BODY_LIMIT_BYTES, 50 MB) to replay it, and the client must
 *   retry anyway for what Caddy cannot see (Caddy's own restart, a timeout): it does,
 *   with the same Idempotency-Key, so the retry is safe whichever instance takes it.
 * - The Host header is passed through as it came (Caddy's default), so
 *   `<slug>.<SITES_DOMAIN>` reaches the site router and the API host the API.
 */
function caddyfile(port: number, upstreams: number[]): string {
  return `{
	admin off
	auto_https off
}
http://:${port} {
	reverse_proxy ${upstreams.map((p) => `127.0.0.1:${p}`).join(' ')} {
		lb_policy round_robin
		lb_try_duration 30s
		lb_try_interval 100ms
		health_uri /health
		health_interval 1s
		health_timeout 5s
		fail_duration 2s
		max_fails 1
		unhealthy_status 5xx
	}
}
`;
}

async function main(): Promise<void> {
  if (!have('caddy')) throw new Error('caddy is required: apt-get update && apt-get install -y caddy');
  build({ quiet: true });
  buildWeb({ quiet: true });
  const root = await mkdtemp(join(tmpdir(), 'statichost-bench-topology-'));
  const dataDir = join(root, 'data');
  await mkdir(dataDir);
  const children = new Set<ChildProcess>();
  let stopPg: (() => Promise<void>) | undefined;
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      // Its own directory: the cluster's system user must be able to reach it (see embedded-postgres.ts).
      const pgDir = await mkdtemp(join(tmpdir(), 'statichost-bench-topology-pg-'));
      const pg = await startEmbeddedPostgres({ dataDir: pgDir, port: await freePort() });
      databaseUrl = pg.url;
      stopPg = () => pg.stop().then(() => rm(pgDir, { recursive: true, force: true }));
    }
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      STORAGE_DRIVER: 'local',
      SITES_DOMAIN,
      API_HOSTS: API_HOST,
      TRUST_PROXY: 'true',
      // Load, not the free plan's quotas (3 projects, 10 deploys a month), is measured.
      PLANS_JSON: JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, storageBytes: null, maxFileBytes: null, maxTtl: null } }),
    };
    const log = createWriteStream(join(root, 'instances.log'));
    const instances: Instance[] = [];
    for (let i = 0; i < INSTANCES; i++) instances.push({ port: await freePort(), starts: 0 });

    const start = (inst: Instance) => {
      inst.starts++;
      // Its own working directory: main.ts reads a .env from there, and the checkout's is not the bench's.
      const node = [process.execPath, '--enable-source-maps', join(ROOT, 'dist', 'src', 'main.js')];
      const argv = RESTART_NICE && inst.starts > 1 ? ['nice', '-n', String(RESTART_NICE), ...node] : node;
      const child = spawn(argv[0], argv.slice(1), {
        cwd: root,
        env: { ...env, PORT: String(inst.port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      children.add(child);
      child.once('exit', () => children.delete(child));
      inst.child = child;
    };
    const healthy = async (inst: Instance, timeoutMs = 120_000): Promise<number> => {
      const t0 = performance.now();
      for (;;) {
        if (inst.child?.exitCode !== null)
          throw new Error(`instance on port ${inst.port} exited with ${inst.child?.exitCode}; see ${join(root, 'instances.log')}`);
        try {
          if ((await request(inst.port, 'GET', '/health', {}, undefined, 2000)).status === 200) return performance.now() - t0;
        } catch {
          // Not listening yet.
        }
        if (performance.now() - t0 > timeoutMs) throw new Error(`instance on port ${inst.port} not healthy in ${timeoutMs} ms`);
        await sleep(50);
      }
    };
    // The first one migrates the database and writes the shared secrets into DATA_DIR; the others then find both.
    start(instances[0]);
    await healthy(instances[0]);
    for (const inst of instances.slice(1)) start(inst);
    await Promise.all(instances.slice(1).map((inst) => healthy(inst)));

    const proxyPort = await freePort();
    await writeFile(
      join(root, 'Caddyfile'),
      caddyfile(
        proxyPort,
        instances.map((i) => i.port),
      ),
    );
    const caddy = spawn('caddy', ['run', '--config', join(root, 'Caddyfile'), '--adapter', 'caddyfile'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    const caddyLog = createWriteStream(join(root, 'caddy.log'));
    caddy.stderr!.pipe(caddyLog);
    children.add(caddy);
    for (let t0 = Date.now(); ; await sleep(100)) {
      try {
        if ((await request(proxyPort, 'GET', '/health', { Host: API_HOST }, undefined, 2000)).status === 200) break;
      } catch {
        // Caddy not listening yet.
      }
      if (caddy.exitCode !== null || Date.now() - t0 > 30_000) throw new Error(`caddy did not start; see ${join(root, 'caddy.log')}`);
    }

    // An account, a token, a site to read and a project to deploy to, all through the proxy.
    const api = { Host: API_HOST };
    const reg = await json(proxyPort, 'POST', '/auth/register', api, {
      email: `topology-${Date.now()}@example.com`,
      password: 'bench password 1',
      name: 'Bench',
    });
    const workspaceId = (reg.workspace as { id: string }).id;
    const tok = await json(
      proxyPort,
      'POST',
      '/access-tokens',
      { ...api, Authorization: `Bearer ${reg.accessToken as string}`, 'X-Workspace-Id': workspaceId },
      { name: 'topology', scopes: ['deploy', 'read', 'admin', 'delete'] },
    );
    const auth = { ...api, Authorization: `Bearer ${tok.token as string}` };
    const siteFiles = [
      { path: 'index.html', content: `<!doctype html><title>topology</title><p>${'statichost '.repeat(200)}</p>` },
      { path: 'app.js', content: `console.log(${JSON.stringify('x'.repeat(8000))});` },
      { path: 'style.css', content: `body { color: #333; }\n${'.c { margin: 0 }\n'.repeat(100)}` },
    ];
    await json(proxyPort, 'POST', '/v1/deployments', auth, { project_slug: 'topo-site', files: siteFiles });
    const deploySlug = 'topo-deploys';
    const first = await json(proxyPort, 'POST', '/v1/deployments', auth, { project_slug: deploySlug, files: siteFiles });
    const projects = await json(proxyPort, 'GET', '/projects?limit=100', auth);
    const deployProjectId = (projects.data as { id: string; slug: string }[]).find((p) => p.slug === deploySlug)!.id;
    const sitePaths = ['/', '/app.js', '/style.css'];
    const siteHosts = [`topo-site.${SITES_DOMAIN}`, `topo-site.${SITES_DOMAIN}`, `topo-site.${SITES_DOMAIN}`, `${deploySlug}.${SITES_DOMAIN}`];

    // Warm every instance (JIT, caches) so that the first seconds measure the topology, not a cold start.
    for (let i = 0; i < 150; i++) await request(proxyPort, 'GET', sitePaths[i % 3], { Host: siteHosts[0] });

    const site: Sample[] = [];
    const apiReads: Sample[] = [];
    const skipped = { site: 0, api: 0 };
    let inFlight = 0;
    const loadBefore = loadavg()[0];
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    const endAt = SECONDS * 1000;

    const read = async (into: Sample[], host: string, path: string, headers: Record<string, string> = {}) => {
      const t = now();
      inFlight++;
      try {
        // Longer than Caddy's lb_try_duration: what fails is what the proxy answered, not this client's patience.
        const res = await request(proxyPort, 'GET', path, { Host: host, ...headers }, undefined, 60_000);
        into.push({ t, ms: now() - t, ok: res.status === 200, detail: res.status === 200 ? undefined : `${res.status} ${res.body.slice(0, 120)}` });
      } catch (err) {
        into.push({ t, ms: now() - t, ok: false, detail: (err as Error).message });
      } finally {
        inFlight--;
      }
    };
    /** Sends `rps` requests a second in 10-ms ticks, whatever the earlier ones are doing (an open loop). */
    const paced = async (rps: number, kind: keyof typeof skipped, send: (n: number) => void) => {
      let sent = 0;
      while (now() < endAt) {
        const due = Math.floor((now() / 1000) * rps);
        for (; sent < due; sent++) {
          if (inFlight >= MAX_IN_FLIGHT) skipped[kind]++;
          else send(sent);
        }
        await sleep(10);
      }
    };

    // Deploys: a fresh key each, retried with the same key until acknowledged.
    interface Deploy {
      key: string;
      sha: string;
      attempts: number;
      acknowledged?: { id: string; version: number; replayed: boolean; ms: number };
      failures: string[];
    }
    const deploys: Deploy[] = [];
    let deploysStopped = false;
    const drainUntil = () => endAt + DRAIN_MS;
    const deployOne = async (n: number) => {
      const key = `topology-${randomUUID()}`;
      const content = `<!doctype html><p>deploy ${n} ${key}</p>`;
      const d: Deploy = { key, sha: createHash('sha256').update(content).digest('hex'), attempts: 0, failures: [] };
      deploys.push(d);
      const body = JSON.stringify({ project_slug: deploySlug, files: [...siteFiles.slice(1), { path: 'index.html', content }] });
      const started = now();
      while (!d.acknowledged && now() < drainUntil()) {
        d.attempts++;
        let retryable: boolean;
        try {
          const res = await request(
            proxyPort,
            'POST',
            '/v1/deployments',
            { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': key },
            body,
            60_000,
          );
          if (res.status === 201 || res.status === 200) {
            const got = JSON.parse(res.body) as { id: string; version: number };
            d.acknowledged = { id: got.id, version: got.version, replayed: res.headers['idempotent-replayed'] === 'true', ms: now() - started };
            break;
          }
          d.failures.push(`${res.status} ${res.body.slice(0, 160)}`);
          // 409: the key's first request is still running (or died holding it): ask again later.
          retryable = res.status >= 500 || res.status === 409;
        } catch (err) {
          d.failures.push((err as Error).message);
          retryable = true;
        }
        if (!retryable) return;
        await sleep(Math.min(2000, 100 * 2 ** Math.min(d.attempts, 5)));
      }
    };
    const deployLoop = async (loop: number) => {
      for (let n = loop; !deploysStopped && now() < endAt; n += DEPLOY_CONCURRENCY) {
        await deployOne(n);
        await sleep(200);
      }
    };

    // Kills: every KILL_EVERY seconds from KILL_EVERY / 2, the next instance in turn.
    const kills: { t: number; port: number; healthyAfterMs?: number; error?: string }[] = [];
    const killLoop = async () => {
      for (let k = 0; ; k++) {
        const at = (KILL_EVERY / 2 + k * KILL_EVERY) * 1000;
        // Never late by more than the restart before it (one instance down at a time), never past the load.
        if (at >= endAt) return;
        await sleep(at - now());
        if (now() >= endAt) return;
        const inst = instances[k % INSTANCES];
        const kill = { t: now(), port: inst.port } as (typeof kills)[number];
        kills.push(kill);
        const dead = inst.child!;
        const exited = new Promise((resolve) => dead.once('exit', resolve));
        dead.kill('SIGKILL');
        await exited;
        if (RESTART_DELAY_MS) await sleep(RESTART_DELAY_MS);
        start(inst);
        try {
          await healthy(inst);
          kill.healthyAfterMs = now() - kill.t;
        } catch (err) {
          kill.error = (err as Error).message;
        }
      }
    };

    const loads = [
      paced(SITE_RPS, 'site', (n) => void read(site, siteHosts[n % siteHosts.length], sitePaths[n % sitePaths.length])),
      paced(
        API_RPS,
        'api',
        (n) => void read(apiReads, API_HOST, n % 2 ? `/projects/${deployProjectId}/deployments?limit=20` : '/v1/me', { Authorization: auth.Authorization }),
      ),
      ...Array.from({ length: DEPLOY_CONCURRENCY }, (_, i) => deployLoop(i)),
      killLoop(),
    ];
    const progress = setInterval(() => {
      const failed = site.filter((s) => !s.ok).length;
      console.error(
        `${(now() / 1000).toFixed(0)} s: ${site.length} site reads (${failed} failed), ${apiReads.length} API reads, ${deploys.filter((d) => d.acknowledged).length}/${deploys.length} deploys acknowledged, ${kills.length} kills`,
      );
    }, 10_000);
    await Promise.all(loads);
    deploysStopped = true;
    clearInterval(progress);
    // Reads still in flight finish (or time out) before the figures are taken.
    while (inFlight > 0) await sleep(50);

    // Every version of the project, each deployment's index.html identifying the deploy that made it.
    const listed: { id: string; version: number }[] = [];
    for (let page = 1; ; page++) {
      const got = await json(proxyPort, 'GET', `/projects/${deployProjectId}/deployments?limit=100&page=${page}`, auth);
      listed.push(...(got.data as { id: string; version: number }[]));
      if (listed.length >= (got.meta as { total: number }).total) break;
    }
    const bySha = new Map<string, string[]>();
    for (const dep of listed) {
      if (dep.id === first.id) continue;
      const detail = await json(proxyPort, 'GET', `/projects/${deployProjectId}/deployments/${dep.id}`, auth);
      const index = (detail.files as { path: string; sha256: string }[]).find((f) => f.path === 'index.html')!;
      bySha.set(index.sha256, [...(bySha.get(index.sha256) ?? []), dep.id]);
    }
    const acknowledged = deploys.filter((d) => d.acknowledged);
    const lost = acknowledged.filter((d) => !bySha.get(d.sha)?.includes(d.acknowledged!.id));
    const duplicates = deploys.filter((d) => (bySha.get(d.sha)?.length ?? 0) > 1);
    const unacknowledged = deploys.filter((d) => !d.acknowledged);
    const unknown = [...bySha.keys()].filter((sha) => !deploys.some((d) => d.sha === sha));
    const restarts = kills.filter((k) => k.healthyAfterMs !== undefined).map((k) => k.healthyAfterMs!);

    const inKill = (s: Sample) => kills.some((k) => s.t >= k.t && s.t < k.t + KILL_WINDOW_MS);
    const row = (samples: Sample[]) => {
      const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
      return {
        total: samples.length,
        failed: samples.filter((s) => !s.ok).length,
        'p50 (ms)': Number(percentile(sorted, 50).toFixed(1)),
        'p99 (ms)': Number(percentile(sorted, 99).toFixed(1)),
        'max (ms)': Number((sorted[sorted.length - 1] ?? NaN).toFixed(1)),
      };
    };
    const siteKill = row(site.filter(inKill));
    if (process.env.BENCH_SAMPLES) await writeFile(process.env.BENCH_SAMPLES, JSON.stringify({ kills, site, api: apiReads }));
    const siteAll = row(site);
    console.log(
      `\nbench:topology — ${INSTANCES} instances behind Caddy, ${SECONDS} s, site reads ${SITE_RPS}/s, API reads ${API_RPS}/s, ${DEPLOY_CONCURRENCY} deploy loops; SIGKILL every ${KILL_EVERY} s; "during kills" = ${KILL_WINDOW_MS / 1000} s after each`,
    );
    console.table({
      'site reads, overall': siteAll,
      'site reads, during kills': siteKill,
      'site reads, outside kills': row(site.filter((s) => !inKill(s))),
      // The same length of time just before each kill: what the machine gives when nothing is dying.
      'site reads, before kills': row(site.filter((s) => kills.some((k) => s.t >= k.t - KILL_WINDOW_MS && s.t < k.t))),
      'API reads, overall': row(apiReads),
      'API reads, during kills': row(apiReads.filter(inKill)),
    });
    const retried = deploys.filter((d) => d.attempts > 1);
    const ackMs = acknowledged.map((d) => d.acknowledged!.ms).sort((a, b) => a - b);
    console.table({
      deploys: {
        sent: deploys.length,
        acknowledged: acknowledged.length,
        retried: retried.length,
        'acknowledged by a replay': acknowledged.filter((d) => d.acknowledged!.replayed).length,
        'p50 to ack (ms)': Number(percentile(ackMs, 50).toFixed(0)),
        'max to ack (ms)': Number((ackMs[ackMs.length - 1] ?? NaN).toFixed(0)),
        'versions listed': listed.length - 1,
        duplicates: duplicates.length,
        lost: lost.length,
        unacknowledged: unacknowledged.length,
      },
    });
    console.log(
      `kills: ${kills.length}; a killed instance healthy again after ${restarts.length ? `${(Math.min(...restarts) / 1000).toFixed(1)}–${(Math.max(...restarts) / 1000).toFixed(1)} s` : '—'}${kills.some((k) => k.error) ? `; restarts failed: ${kills.filter((k) => k.error).length}` : ''}`,
    );
    // The machine's own business: on a shared machine the other processes' load moves every latency here.
    console.log(`load average (1 min) at the start ${loadBefore.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)}, on ${availableParallelism()} cores`);
    if (skipped.site || skipped.api) console.log(`not sent (over ${MAX_IN_FLIGHT} in flight): ${skipped.site} site reads, ${skipped.api} API reads`);
    for (const [name, samples] of [
      ['site read', site],
      ['API read', apiReads],
    ] as const) {
      for (const s of samples.filter((x) => !x.ok).slice(0, 5)) console.log(`failed ${name} at ${(s.t / 1000).toFixed(2)} s: ${s.detail}`);
    }
    for (const d of retried.slice(0, 10)) console.log(`deploy ${d.key}: ${d.attempts} attempts (${d.failures.join(' | ').slice(0, 300)})`);
    if (unknown.length) console.log(`versions matching no deploy of this run: ${unknown.length}`);

    const goals = [
      ['0 failed site reads at the proxy', siteAll.failed === 0, `${siteAll.failed} failed`],
      ['every deploy acknowledged', unacknowledged.length === 0, `${unacknowledged.length} not`],
      [
        'no lost and no duplicate versions',
        lost.length === 0 && duplicates.length === 0 && unknown.length === 0,
        `${lost.length} lost, ${duplicates.length} duplicated`,
      ],
      ['p99 of site reads during a kill <= 1 s', siteKill['p99 (ms)'] <= 1000, `${siteKill['p99 (ms)']} ms`],
      ['every killed instance back', kills.length > 0 && kills.every((k) => !k.error), `${kills.length} kills`],
    ] as const;
    for (const [goal, met, figure] of goals) console.log(`${goal}: ${figure} ${met ? 'MET' : 'MISSED'}`);
    if (goals.some(([, met]) => !met)) {
      process.exitCode = 1;
      console.log(`logs: ${join(root, 'instances.log')}, ${join(root, 'caddy.log')} (kept)`);
      const tail = (await readFile(join(root, 'instances.log'), 'utf8')).split('\n').slice(-20).join('\n');
      if (tail.trim()) console.log(`last lines of the instances' log:\n${tail}`);
    }
  } finally {
    agent.destroy();
    await Promise.all(
      [...children].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await stopPg?.();
    if (!process.exitCode) await rm(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
