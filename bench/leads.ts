/**
 * `npm run bench:leads`: search and listing over 1,000,000 encrypted leads in one
 * workspace, beside the same queries on a plaintext copy with a pg_trgm index (the
 * unencrypted limit), in the same embedded PostgreSQL.
 *
 * Seeds with the service's own crypto (AES-256-GCM per row, the workspace's dedupe
 * digest and trigram tokens, computed in Node) through batched `unnest` inserts,
 * secondary indexes built once afterwards. Then measures through the real HTTP API
 * on 127.0.0.1 (search: `GET /projects/gate/leads?search=`, listing: page 1 of both
 * lists) and the plaintext equivalents as SQL (count + page of 25).
 *
 * Everything lives in a temporary directory removed at the end. Environment:
 *   LEADS_BENCH_COUNT   leads to seed (default 1000000)
 *   LEADS_BENCH_ROUNDS  times each search is measured (default 5)
 *   LEADS_BENCH_DIR     keep the seeded database in this directory instead, and reuse it
 *                       on later runs (seeding takes minutes); delete it to seed again
 */
import 'reflect-metadata';

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { createApp } from '../src/app.factory';
import { newId } from '../src/common/ids';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { LeadsKeyring } from '../src/leads/keyring';
import { domainAad, leadAad, sealEmail, splitEmail, TOKEN_BITS, trigrams } from '../src/leads/lead-crypto';

const COUNT = Number(process.env.LEADS_BENCH_COUNT ?? 1_000_000);
const ROUNDS = Number(process.env.LEADS_BENCH_ROUNDS ?? 5);
const PROJECTS = 10;
const BATCH = 10_000;
const LISTING_RUNS = 40;
const TIME_LIMIT_MS = 40 * 60_000;

const TARGETS = { searchP95Ms: 200, searchVsPlaintext: 3, listingP95Ms: 50 };

/**
 * What people type into a leads search box: a name, part of one, a company or mail
 * domain, digits. From very selective to very broad ("gmail": about a quarter of all leads).
 */
const SEARCHES = [
  'john.smith',
  'jenkins',
  'sophia.m',
  'mary.',
  'lee',
  'ann',
  'walker7',
  '1984',
  '42@',
  'hotmail',
  'gmail',
  '.co.uk',
  'nexus',
  'glotri',
  'labs',
  'zzqx',
];
const SHORT_SEARCHES = ['jo', 'x'];

// ---------------------------------------------------------------- data

/** Small, seeded PRNG (mulberry32), so every run seeds the same emails. */
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

const FIRST = `james mary john patricia robert jennifer michael linda william elizabeth david barbara richard susan joseph jessica thomas sarah charles karen
christopher nancy daniel lisa matthew betty anthony margaret mark sandra donald ashley steven kimberly paul emily andrew donna joshua michelle kenneth
carol kevin amanda brian melissa george deborah timothy stephanie ronald rebecca edward sharon jason laura jeffrey cynthia ryan kathleen jacob amy gary
angela nicholas shirley eric anna jonathan brenda stephen pamela larry emma justin nicole scott helen brandon samantha benjamin katherine samuel christine
gregory debra alexander rachel frank carolyn patrick janet raymond catherine jack maria dennis heather jerry diane tyler ruth aaron julie jose olivia adam
joyce henry virginia nathan victoria douglas kelly zachary lauren peter christina kyle joan ethan evelyn walter judith noah megan jeremy andrea christian
cheryl keith hannah roger jacqueline terry martha gerald gloria harold teresa sean ann austin sara carl madison arthur frances lawrence kathryn dylan
janice jesse jean jordan abigail bryan alice billy julia joe judy bruce sophia gabriel grace logan denise albert amber willie doris alan marilyn juan
danielle wayne beverly elijah isabella randy theresa roy diana vincent natalie ralph brittany eugene charlotte russell marie bobby kayla mason alexis
philip lori louis`.split(/\s+/);
const LAST = `smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson thomas taylor moore jackson
martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king wright scott torres nguyen hill flores green adams
nelson baker hall rivera campbell mitchell carter roberts gomez phillips evans turner diaz parker cruz edwards collins reyes stewart morris morales murphy
cook rogers gutierrez ortiz morgan cooper peterson bailey reed kelly howard ramos kim cox ward richardson watson brooks chavez wood james bennett gray
mendoza ruiz hughes price alvarez castillo sanders patel myers long ross foster jimenez powell jenkins perry russell sullivan bell coleman butler
henderson barnes gonzales fisher vasquez simmons romero jordan patterson alexander hamilton graham reynolds griffin wallace moreno west cole hayes bryant
herrera gibson ellis tran medina aguilar stevens murray ford castro marshall owens harrison fernandez mcdonald woods washington kennedy wells vargas henry
chen freeman webb tucker guzman burns crawford olson simpson porter hunter gordon mendez silva shaw snyder mason dixon munoz hunt hicks holmes palmer
wagner black robertson boyd rose stone salazar fox warren mills meyer rice schmidt garza daniels ferguson nichols stephens soto weaver ryan gardner payne
grant dunn kelley spencer hawkins arnold pierce vazquez hansen peters santos hart bradley knight elliott cunningham duncan armstrong hudson carroll lane
riley andrews alvarado ray delgado berry perkins hoffman johnston matthews pena richards willis carpenter lawrence sandoval`.split(/\s+/);
const MAIL_DOMAINS: [string, number][] = [
  ['gmail.com', 0.24],
  ['yahoo.com', 0.07],
  ['outlook.com', 0.06],
  ['hotmail.com', 0.05],
  ['icloud.com', 0.04],
  ['proton.me', 0.015],
  ['aol.com', 0.01],
  ['gmx.de', 0.01],
  ['web.de', 0.005],
];
const SYLLABLES = 'ac me glo bex tri no va lux ter ra zen ith cor por ex ia lab syn tec data flow nex us pro gen ix on ly ma ri ka so bel ar to'.split(' ');
const TLDS = ['com', 'io', 'co', 'net', 'org', 'de', 'fr', 'co.uk', 'ai', 'dev'];

/** Realistic addresses: name patterns, digits, big mail providers, and a long tail of company domains. */
function emailGenerator(seed: number): () => string {
  const r = prng(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(r() * a.length)];
  const companies: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    let name = '';
    const parts = 2 + Math.floor(r() * 2);
    for (let j = 0; j < parts; j++) name += pick(SYLLABLES);
    if (r() < 0.2) name += `-${pick(['group', 'labs', 'hq', 'systems', 'media'])}`;
    companies.push(`${name}.${pick(TLDS)}`);
  }
  return () => {
    const f = pick(FIRST);
    const l = pick(LAST);
    const p = r();
    let local =
      p < 0.35
        ? `${f}.${l}`
        : p < 0.5
          ? f + l
          : p < 0.6
            ? f[0] + l
            : p < 0.68
              ? `${f}_${l}`
              : p < 0.78
                ? `${f}.${l[0]}`
                : p < 0.86
                  ? `${l}.${f}`
                  : p < 0.93
                    ? f
                    : `${f}-${l}`;
    const d = r();
    if (d < 0.45) local += String(Math.floor(r() * (d < 0.2 ? 100 : 10_000)));
    if (r() < 0.01) local += '+news';
    let x = r();
    let domain: string | undefined;
    for (const [name, weight] of MAIL_DOMAINS) {
      if (x < weight) {
        domain = name;
        break;
      }
      x -= weight;
    }
    return `${local}@${domain ?? companies[Math.floor(Math.pow(r(), 2.2) * companies.length)]}`;
  };
}

// ---------------------------------------------------------------- helpers

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const result = await work();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const seconds = (n: number) => `${(n / 1000).toFixed(1)} s`;

function shuffled<T>(items: T[], r: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---------------------------------------------------------------- bench

/** What a kept seed (LEADS_BENCH_DIR) needs to be measured again. */
interface SeedState {
  count: number;
  workspaceId: string;
  projectIds: string[];
  token: string;
  distinctTrigrams: number;
}

async function main(): Promise<void> {
  const keep = process.env.LEADS_BENCH_DIR;
  const dir = keep ? (await mkdir(keep, { recursive: true }), keep) : await mkdtemp(join(tmpdir(), 'statichost-bench-leads-'));
  const stateFile = join(dir, 'bench-seed.json');
  const kept: SeedState | undefined = keep && existsSync(stateFile) ? JSON.parse(await readFile(stateFile, 'utf8')) : undefined;
  if (kept && kept.count !== COUNT) throw new Error(`${dir} holds ${kept.count} leads, not ${COUNT}: delete it to seed again`);
  let embedded: EmbeddedPostgresHandle | undefined;
  let app: Awaited<ReturnType<typeof createApp>>['app'] | undefined;
  let sql: Client | undefined;
  const cleanup = async () => {
    await sql?.end().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    if (!keep) await rm(dir, { recursive: true, force: true });
  };
  const guard = setTimeout(() => {
    console.error(`bench:leads took longer than ${TIME_LIMIT_MS / 60_000} minutes: stopping`);
    void cleanup().finally(() => process.exit(2));
  }, TIME_LIMIT_MS);
  guard.unref();
  const interrupt = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  try {
    console.log(`bench:leads: ${COUNT.toLocaleString('en')} leads in one workspace (${PROJECTS} projects), ${ROUNDS} rounds per search`);
    embedded = await startEmbeddedPostgres({ dataDir: dir, port: await freePort() });
    const port = await freePort();
    const created = await createApp({ env: { DATABASE_URL: embedded.url, DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'warn', SWEEP_INTERVAL_SECONDS: '0' } });
    app = created.app;
    await app.listen(port, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;
    sql = new Client({ connectionString: embedded.url });
    await sql.connect();

    const state: SeedState = kept ?? { count: COUNT, workspaceId: '', projectIds: [], token: '', distinctTrigrams: 0 };
    if (kept) console.log(`reusing the leads seeded in ${dir}`);
    else {
      // A user, a read token, projects (inserted directly: plan quotas are not what is measured).
      const reg = await (
        await fetch(`${base}/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'bench@leads.example', password: 'bench password 123', name: 'Bench' }),
        })
      ).json();
      const workspaceId: string = reg.workspace.id;
      state.workspaceId = workspaceId;
      const tokenRes = await (
        await fetch(`${base}/access-tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${reg.accessToken}`, 'x-workspace-id': workspaceId },
          body: JSON.stringify({ name: 'bench', scopes: ['read'] }),
        })
      ).json();
      state.token = tokenRes.token;
      const projectIds = state.projectIds;
      for (let i = 0; i < PROJECTS; i++) {
        const id = newId('proj');
        await sql.query(`INSERT INTO projects (id, workspace_id, name, slug, type, gate_type) VALUES ($1, $2, $3, $4, 'static_site', 'email')`, [
          id,
          workspaceId,
          `Bench ${i}`,
          `bench-${i}`,
        ]);
        projectIds.push(id);
      }

      // ------------------------------------------------------------ seed
      const keyring = app.get(LeadsKeyring);
      const key = keyring.current;
      const index = keyring.index(workspaceId);
      const secondary: { indexname: string; indexdef: string }[] = (
        await sql.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'leads' AND indexname <> 'PK_leads'`)
      ).rows;
      for (const i of secondary) await sql.query(`DROP INDEX "${i.indexname}"`);
      await sql.query(
        'CREATE UNLOGGED TABLE bench_plain_leads (id text PRIMARY KEY, workspace_id text NOT NULL, project_id text NOT NULL, email text NOT NULL, captured_at timestamptz(3) NOT NULL)',
      );

      const next = emailGenerator(20251121);
      const seen = new Set<string>();
      const distinctTrigrams = new Set<string>();
      const domains = new Map<string, Buffer>();
      const start = Date.parse('2024-01-01T00:00:00Z');
      const step = Math.floor((365 * 24 * 3600 * 1000) / COUNT);
      let cryptoMs = 0;
      let insertMs = 0;
      const seedStart = Date.now();
      for (let done = 0; done < COUNT; done += BATCH) {
        const n = Math.min(BATCH, COUNT - done);
        const cols = {
          id: [] as string[],
          project: [] as string[],
          nonce: [] as Buffer[],
          ct: [] as Buffer[],
          hash: [] as Buffer[],
          tokens: [] as string[],
          domain: [] as Buffer[],
          local: [] as string[],
          at: [] as string[],
          email: [] as string[],
        };
        const t0 = Date.now();
        for (let i = 0; i < n; i++) {
          let email = next();
          while (seen.has(email)) email = next();
          seen.add(email);
          for (const trigram of trigrams(email)) distinctTrigrams.add(trigram);
          const id = newId('lead');
          const projectId = projectIds[(done + i) % PROJECTS];
          const sealed = sealEmail(key.key, email, leadAad(projectId, id));
          cols.id.push(id);
          cols.project.push(projectId);
          cols.nonce.push(sealed.nonce);
          cols.ct.push(sealed.ciphertext);
          cols.hash.push(index.emailHash(projectId, email));
          cols.tokens.push(`{${index.tokens(email).join(',')}}`);
          const parts = splitEmail(email);
          let domainHash = domains.get(parts.domain);
          if (!domainHash) domains.set(parts.domain, (domainHash = index.domainHash(parts.domain)));
          cols.domain.push(domainHash);
          cols.local.push(`{${index.tokens(parts.local).join(',')}}`);
          cols.at.push(new Date(start + (done + i) * step + ((done + i) % 997)).toISOString());
          cols.email.push(email);
        }
        const t1 = Date.now();
        await sql.query(
          `INSERT INTO leads (id, workspace_id, project_id, key_id, email_nonce, email_ciphertext, index_key_id, email_hash, search_tokens, domain_hash, local_tokens, captured_at)
           SELECT u.id, $1, u.project_id, $2, u.nonce, u.ct, $3, u.hash, u.tokens::int[], u.domain, u.local::int[], u.at
           FROM unnest($4::text[], $5::text[], $6::bytea[], $7::bytea[], $8::bytea[], $9::text[], $10::bytea[], $11::text[], $12::timestamptz[]) AS u(id, project_id, nonce, ct, hash, tokens, domain, local, at)`,
          [workspaceId, key.id, index.keyId, cols.id, cols.project, cols.nonce, cols.ct, cols.hash, cols.tokens, cols.domain, cols.local, cols.at],
        );
        await sql.query(
          `INSERT INTO bench_plain_leads SELECT u.id, $1, u.project_id, u.email, u.at FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS u(id, project_id, email, at)`,
          [workspaceId, cols.id, cols.project, cols.email, cols.at],
        );
        cryptoMs += t1 - t0;
        insertMs += Date.now() - t1;
        if ((done / BATCH) % 20 === 0) process.stdout.write(`  seeded ${(done + n).toLocaleString('en')}\r`);
      }
      // The workspace's domain dictionary, as captures build it (lead-domains.ts).
      const entries = [...domains].map(([domain, hash]) => ({
        hash,
        sealed: sealEmail(key.key, domain, domainAad(workspaceId, hash)),
        tokens: `{${index.tokens(domain).join(',')}}`,
      }));
      await sql.query(
        `INSERT INTO lead_domains (workspace_id, domain_hash, index_key_id, key_id, domain_nonce, domain_ciphertext, search_tokens)
         SELECT $1, u.hash, $2, $3, u.nonce, u.ct, u.tokens::int[] FROM unnest($4::bytea[], $5::bytea[], $6::bytea[], $7::text[]) AS u(hash, nonce, ct, tokens)`,
        [
          workspaceId,
          index.keyId,
          key.id,
          entries.map((e) => e.hash),
          entries.map((e) => e.sealed.nonce),
          entries.map((e) => e.sealed.ciphertext),
          entries.map((e) => e.tokens),
        ],
      );
      const t2 = Date.now();
      for (const i of secondary) await sql.query(i.indexdef);
      await sql.query(`INSERT INTO lead_counters (project_id, workspace_id, lead_count) SELECT project_id, workspace_id, count(*) FROM leads GROUP BY 1, 2`);
      const leadIndexMs = Date.now() - t2;
      const t3 = Date.now();
      await sql.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await sql.query('CREATE INDEX bench_plain_email_trgm ON bench_plain_leads USING gin (email gin_trgm_ops)');
      await sql.query('CREATE INDEX bench_plain_workspace_captured ON bench_plain_leads (workspace_id, captured_at, id)');
      const plainIndexMs = Date.now() - t3;
      await sql.query('VACUUM ANALYZE leads');
      await sql.query('VACUUM ANALYZE lead_counters');
      await sql.query('VACUUM ANALYZE lead_domains');
      await sql.query('VACUUM ANALYZE bench_plain_leads');
      const seedMs = Date.now() - seedStart;
      const sizes = (
        await sql.query(
          `SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) AS total, pg_size_pretty(pg_relation_size(oid)) AS heap FROM pg_class WHERE relname IN ('leads', 'bench_plain_leads', 'IDX_leads_search_tokens', 'bench_plain_email_trgm') ORDER BY relname`,
        )
      ).rows as { relname: string; total: string; heap: string }[];
      console.log(
        `seeded in ${seconds(seedMs)}: crypto and tokens in Node ${seconds(cryptoMs)}, inserts ${seconds(insertMs)}, lead indexes ${seconds(leadIndexMs)}, plaintext indexes ${seconds(plainIndexMs)}`,
      );
      for (const s of sizes) console.log(`  ${s.relname.padEnd(26)} ${s.total.padStart(8)} total, ${s.heap.padStart(8)} own`);
      state.distinctTrigrams = distinctTrigrams.size;
      if (keep) await writeFile(stateFile, JSON.stringify(state));
      const buckets = (await sql.query('SELECT count(DISTINCT t)::int AS n FROM (SELECT unnest(search_tokens) AS t FROM leads) AS u')).rows[0].n as number;
      console.log(
        `  ${distinctTrigrams.size.toLocaleString('en')} distinct trigrams share ${buckets.toLocaleString('en')} of ${(1 << TOKEN_BITS).toLocaleString('en')} token buckets (${(distinctTrigrams.size / buckets).toFixed(1)} per bucket)`,
      );
    }
    const { workspaceId, projectIds } = state;
    const auth = { authorization: `Bearer ${state.token}` };
    const index = app.get(LeadsKeyring).index(workspaceId);

    // ------------------------------------------------------------ measure
    const api = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: auth });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { meta: { total: number }; data: { email: string }[] };
    };
    const plainSearch = async (term: string) => {
      const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const count = await sql!.query('SELECT count(*)::int AS n FROM bench_plain_leads WHERE workspace_id = $1 AND email ILIKE $2', [workspaceId, pattern]);
      const page = await sql!.query(
        'SELECT id, email, captured_at FROM bench_plain_leads WHERE workspace_id = $1 AND email ILIKE $2 ORDER BY captured_at DESC, id DESC LIMIT 25',
        [workspaceId, pattern],
      );
      return { total: count.rows[0].n as number, first: page.rows.map((r) => r.email as string) };
    };
    const plainList = async () => {
      const count = await sql!.query('SELECT count(*)::int AS n FROM bench_plain_leads WHERE workspace_id = $1', [workspaceId]);
      await sql!.query('SELECT id, email, captured_at FROM bench_plain_leads WHERE workspace_id = $1 ORDER BY captured_at DESC, id DESC LIMIT 25', [
        workspaceId,
      ]);
      return count.rows[0].n as number;
    };

    const perTerm = new Map<string, { enc: number[]; plain: number[]; total: number; candidates: number }>();
    for (const term of SEARCHES) {
      // Warm-up, and a check that both sides agree.
      const enc = await api(`/projects/gate/leads?search=${encodeURIComponent(term)}`);
      const plain = await plainSearch(term);
      if (enc.meta.total !== plain.total || enc.data.map((l) => l.email).join() !== plain.first.join()) {
        throw new Error(`search ${JSON.stringify(term)}: encrypted found ${enc.meta.total}, plaintext ${plain.total}: results differ`);
      }
      const tokens = index.tokens(term.toLowerCase());
      const candidates = (await sql.query('SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1 AND search_tokens @> $2::int[]', [workspaceId, tokens]))
        .rows[0].n as number;
      perTerm.set(term, { enc: [], plain: [], total: plain.total, candidates });
    }
    const r = prng(7);
    for (let round = 0; round < ROUNDS; round++) {
      for (const term of shuffled(SEARCHES, r)) {
        const entry = perTerm.get(term)!;
        entry.enc.push((await timed(() => api(`/projects/gate/leads?search=${encodeURIComponent(term)}`)))[0]);
        entry.plain.push((await timed(() => plainSearch(term)))[0]);
      }
    }
    const encAll = [...perTerm.values()].flatMap((e) => e.enc);
    const plainAll = [...perTerm.values()].flatMap((e) => e.plain);

    const short: { term: string; total: number; ms: number; plainMs: number }[] = [];
    for (const term of SHORT_SEARCHES) {
      const [encMs, enc] = await timed(() => api(`/projects/gate/leads?search=${encodeURIComponent(term)}`));
      const [plainMs] = await timed(() => plainSearch(term));
      short.push({ term, total: enc.meta.total, ms: encMs, plainMs });
    }

    const listing = { workspace: [] as number[], project: [] as number[], plain: [] as number[] };
    await api('/projects/gate/leads');
    await api(`/projects/${projectIds[0]}/gate/leads`);
    await plainList();
    for (let i = 0; i < LISTING_RUNS; i++) {
      listing.workspace.push((await timed(() => api('/projects/gate/leads')))[0]);
      listing.project.push((await timed(() => api(`/projects/${projectIds[0]}/gate/leads`)))[0]);
      listing.plain.push((await timed(() => plainList()))[0]);
    }

    // ------------------------------------------------------------ report
    console.log('\nsearch, per substring (GET /projects/gate/leads?search=, limit 25; plaintext: count + page with ILIKE on pg_trgm)');
    console.log(
      `  ${'substring'.padEnd(12)} ${'matches'.padStart(9)} ${'candidates'.padStart(11)} ${'encrypted p50'.padStart(14)} ${'plaintext p50'.padStart(14)}`,
    );
    for (const [term, e] of perTerm) {
      console.log(
        `  ${JSON.stringify(term).padEnd(12)} ${e.total.toLocaleString('en').padStart(9)} ${e.candidates.toLocaleString('en').padStart(11)} ${ms(percentile(e.enc, 50)).padStart(14)} ${ms(percentile(e.plain, 50)).padStart(14)}`,
      );
    }
    const encP95 = percentile(encAll, 95);
    const plainP95 = percentile(plainAll, 95);
    const listP95 = Math.max(percentile(listing.workspace, 95), percentile(listing.project, 95));
    const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');
    console.log(`\nsearch over ${SEARCHES.length} substrings x ${ROUNDS} rounds (${encAll.length} requests each side)`);
    console.log(
      `  encrypted (HTTP, end to end)  p50 ${ms(percentile(encAll, 50))}  p95 ${ms(encP95)}   target p95 <= ${TARGETS.searchP95Ms} ms: ${verdict(encP95 <= TARGETS.searchP95Ms)}`,
    );
    console.log(`  plaintext pg_trgm (SQL)       p50 ${ms(percentile(plainAll, 50))}  p95 ${ms(plainP95)}`);
    console.log(
      `  ratio of p95                  ${(encP95 / plainP95).toFixed(2)}x   target <= ${TARGETS.searchVsPlaintext}x: ${verdict(encP95 <= TARGETS.searchVsPlaintext * plainP95)}`,
    );
    console.log('\nsearch under 3 characters (no trigram: every lead of the scope is decrypted; not in the figures above)');
    for (const s of short)
      console.log(
        `  ${JSON.stringify(s.term).padEnd(6)} ${s.total.toLocaleString('en').padStart(9)} matches  encrypted ${ms(s.ms)}  plaintext ${ms(s.plainMs)}`,
      );
    console.log(`\nlisting, page 1 (${LISTING_RUNS} runs each)`);
    console.log(`  GET /projects/gate/leads              p50 ${ms(percentile(listing.workspace, 50))}  p95 ${ms(percentile(listing.workspace, 95))}`);
    console.log(`  GET /projects/:projectId/gate/leads   p50 ${ms(percentile(listing.project, 50))}  p95 ${ms(percentile(listing.project, 95))}`);
    console.log(`  plaintext count(*) + page (SQL)       p50 ${ms(percentile(listing.plain, 50))}  p95 ${ms(percentile(listing.plain, 95))}`);
    console.log(`  target p95 <= ${TARGETS.listingP95Ms} ms: ${verdict(listP95 <= TARGETS.listingP95Ms)}`);
  } finally {
    clearTimeout(guard);
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
