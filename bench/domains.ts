/**
 * npm run bench:domains — what custom domains cost the requests that are not for them,
 * and what serving through one costs. One app in the dev default (API_HOSTS unset: any
 * host that is not a verified custom domain reaches the API), a DNS server on loopback
 * (dns2) that verifies one domain, wrk on 127.0.0.1 (core 1 when taskset exists).
 *
 * Targets:
 * - an API request on a dotted host that is no custom domain (`api.example.test`) runs at
 *   >= 95% of the req/s of one on 127.0.0.1 (which skips the lookup), and the router asks
 *   the database about that host at most once (the null is cached until a site changes);
 * - a site on its verified custom domain runs at >= 90% of its `<slug>.<SITES_DOMAIN>` req/s.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { DataSource } from 'typeorm';

import { startDnsServer } from '../test/helpers/dns';
import { api, have, startBenchApp } from './harness';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const DOMAIN = 'www.bench-domain.example';

interface Result {
  reqPerSec: number;
  p99Ms: number;
  statuses: string;
}

/** Runs wrk without blocking: the app under test answers from this very process. */
async function wrk(url: string, host: string, seconds = DURATION): Promise<Result> {
  const pin = have('taskset') ? ['taskset', '-c', '1'] : [];
  const args = [...pin, 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-H', `Host: ${host}`, url];
  const { stdout: out } = await promisify(execFile)(args[0], args.slice(1), { encoding: 'utf8' });
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  return {
    reqPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p99Ms: p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : NaN,
    statuses: /Non-2xx or 3xx responses: (\d+)/.exec(out) ? 'non-2xx' : '2xx',
  };
}

async function main(): Promise<void> {
  if (!have('wrk')) throw new Error('wrk is required: apt-get install -y wrk');
  const dns = await startDnsServer();
  const app = await startBenchApp({ LOG_LEVEL: 'silent', DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000' });
  const results: Record<string, Result> = {};
  let lookups = 0;
  try {
    const auth = { Authorization: `Bearer ${app.token}` };
    await api(app.baseUrl, 'POST', '/v1/deployments', { project_slug: 'bench', files: [{ path: 'index.html', content: `<p>${'x'.repeat(2000)}</p>` }] }, auth);
    const list = await api(app.baseUrl, 'GET', '/projects?limit=100', undefined, auth);
    const id = (list.data as { id: string; slug: string }[]).find((p) => p.slug === 'bench')!.id;
    const attached = await api(app.baseUrl, 'PATCH', `/projects/${id}`, { custom_domain: DOMAIN }, auth);
    for (const r of attached.domainRecords as { type: string; name: string; value: string }[]) {
      if (r.type === 'TXT') dns.setTxt(r.name, r.value);
    }
    const verified = await api(app.baseUrl, 'POST', `/projects/${id}/verify-domain`, undefined, auth);
    if (!verified.verified) throw new Error(`verification failed: ${JSON.stringify(verified)}`);

    // Count the router's custom-domain lookups (SiteCache queries through the DataSource).
    const ds = app.app.get(DataSource);
    const query = ds.query.bind(ds);
    ds.query = ((sql: string, params?: unknown[]) => {
      if (sql.includes('p.custom_domain = $1')) lookups++;
      return query(sql, params);
    }) as typeof ds.query;

    const base = `http://127.0.0.1:${app.port}`;
    // Warm up (JIT, connection pools, caches) so the first measured run is not the cold one.
    await wrk(`${base}/projects`, `127.0.0.1:${app.port}`, 2);
    await wrk(`${base}/`, `bench.localhost:${app.port}`, 2);
    // An API route that answers without touching the database (no credential: 401).
    results['API on 127.0.0.1 (no lookup)'] = await wrk(`${base}/projects`, `127.0.0.1:${app.port}`);
    results['API on api.example.test'] = await wrk(`${base}/projects`, `api.example.test:${app.port}`);
    results['site on bench.localhost'] = await wrk(`${base}/`, `bench.localhost:${app.port}`);
    results[`site on ${DOMAIN}`] = await wrk(`${base}/`, `${DOMAIN}:${app.port}`);
  } finally {
    await app.close();
    await dns.close();
  }

  console.log(`\nbench:domains — ${CONNECTIONS} connections, ${DURATION} s each, app and wrk on loopback`);
  console.table(
    Object.fromEntries(Object.entries(results).map(([k, r]) => [k, { 'req/s': Math.round(r.reqPerSec), 'p99 (ms)': r.p99Ms.toFixed(2), answers: r.statuses }])),
  );
  const apiRatio = results['API on api.example.test'].reqPerSec / results['API on 127.0.0.1 (no lookup)'].reqPerSec;
  const siteRatio = results[`site on ${DOMAIN}`].reqPerSec / results['site on bench.localhost'].reqPerSec;
  console.log(`API on a dotted host: ${(apiRatio * 100).toFixed(0)}% of 127.0.0.1 (target >= 95%) ${apiRatio >= 0.95 ? 'MET' : 'MISSED'}`);
  console.log(`custom-domain lookups in the database during the run: ${lookups} (target <= 2: one per host) ${lookups <= 2 ? 'MET' : 'MISSED'}`);
  console.log(`site on its custom domain: ${(siteRatio * 100).toFixed(0)}% of its slug host (target >= 90%) ${siteRatio >= 0.9 ? 'MET' : 'MISSED'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
