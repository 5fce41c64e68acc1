import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { type TestApp } from '../helpers/app';
import { asUser, bearer, type UserSession } from '../helpers/identity';

/**
 * The peers' expectations (Netlify's and Cloudflare's own fixtures and tests) as requests
 * against a real deploy. A site is one deploy (the rules files, the files its cases need);
 * its cases are "the deploy is accepted/refused" and one per request. The expectations are
 * what the peer does, never what we do: a case either agrees with our answer, or is listed
 * in test/fixtures/peers/differences.json with the reason.
 */
export interface PeerSite {
  /** Unique; the cases' ids start with it. */
  id: string;
  /** Where the expectation comes from: repository, path, and the test or fixture in it. */
  source: string;
  /** `_redirects` and `_headers` as written; `{{HOST}}` is the site's host, `{{ORIGIN}}` the test's origin server. */
  redirects?: string;
  headers?: string;
  /** Further files of the deploy (each one's body is `page:<path>`, so a case can tell which was served). */
  files?: string[];
  /** No `404.html` (by default every site has one, so a miss is a 404 with `page:404.html`). */
  no404?: boolean;
  /** A build environment variable `API_SECRET` (for `Sign=`), set before the deploy. */
  signingSecret?: boolean;
  /** What the peer does with these rules files. */
  deploy: 'accepted' | 'refused';
  requests?: PeerRequest[];
}

export interface PeerRequest {
  /** Unique within the site. */
  id: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expect: PeerAnswer;
}

export interface PeerAnswer {
  /** Left out where the case is about headers only (a miss gets them on its 404 page too). */
  status?: number;
  /** The Location header exactly (`{{HOST}}` replaced), or null for none. */
  location?: string | null;
  body?: string | RegExp;
  /** Header values (lowercase names) exactly or by pattern; null: the header is absent. */
  headers?: Record<string, string | RegExp | null>;
}

export interface CaseOutcome {
  id: string;
  agrees: boolean;
  /** What we answered, when it differs. */
  detail: string;
  /** Where the expectation comes from (the site's `source`). */
  source: string;
}

export const SIGNING_SECRET = 'peer-signing-secret';

/** `page:<path>`: the body of every deployed file, so an answer names the file it is. */
export const page = (path: string) => `page:${path}`;

export const caseCount = (sites: PeerSite[]) => sites.reduce((n, s) => n + 1 + (s.requests?.length ?? 0), 0);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A raw HTTP/1.1 request to the app with the site's Host: node's client sends the path
 * exactly as written (`//fake.host/x`, `/%2Fwww.example.com/`), which a URL-parsing client
 * would normalise.
 */
function send(t: TestApp, host: string, r: PeerRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: t.port, method: r.method ?? 'GET', path: r.path, headers: { ...r.headers, Host: `${host}:${t.port}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

const fill = (text: string, vars: Record<string, string>) => text.replace(/\{\{(HOST|ORIGIN)\}\}/g, (_, k: string) => vars[k]);

function compare(expect: PeerAnswer, got: Answer, vars: Record<string, string>): string[] {
  const problems: string[] = [];
  if (expect.status !== undefined && got.status !== expect.status) problems.push(`status ${got.status}, expected ${expect.status}`);
  if (expect.location !== undefined) {
    const want = expect.location === null ? undefined : fill(expect.location, vars);
    const location = got.headers.location as string | undefined;
    if (location !== want) problems.push(`Location ${JSON.stringify(location)}, expected ${JSON.stringify(want)}`);
  }
  if (expect.body !== undefined) {
    const ok = typeof expect.body === 'string' ? got.body === expect.body : expect.body.test(got.body);
    if (!ok) problems.push(`body ${JSON.stringify(got.body.slice(0, 80))}, expected ${String(expect.body)}`);
  }
  for (const [name, want] of Object.entries(expect.headers ?? {})) {
    const raw = got.headers[name];
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const ok = want === null ? value === undefined : value !== undefined && (typeof want === 'string' ? value === want : want.test(value));
    if (!ok) problems.push(`${name}: ${JSON.stringify(value)}, expected ${want === null ? 'none' : String(want)}`);
  }
  return problems;
}

/** A real origin for proxy cases: answers `origin <METHOD> <path> sign=<absent|valid|invalid>`. */
export async function startOrigin(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`origin ${req.method} ${req.url} sign=${checkSignature(req.headers['x-nf-sign'])}${body ? ` body=${body}` : ''}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Netlify's `X-Nf-Sign`: a compact JWS, HS256, signed with the variable named by `Sign=`. */
function checkSignature(header: string | string[] | undefined): string {
  if (typeof header !== 'string') return 'absent';
  const [head, payload, signature] = header.split('.');
  if (!head || !payload || !signature) return 'invalid';
  const alg = (JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string }).alg;
  const expected = createHmac('sha256', SIGNING_SECRET).update(`${head}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  return alg === 'HS256' && given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'invalid';
}

export interface RunContext {
  t: TestApp;
  token: string;
  session: UserSession;
  origin: string;
}

/** Deploys one site and runs its requests; every case of the site gets an outcome. */
export async function runSite(ctx: RunContext, site: PeerSite, slug: string): Promise<CaseOutcome[]> {
  const { t, token, session } = ctx;
  const host = `${slug}.${t.config.SITES_DOMAIN}`;
  const vars = { HOST: host, ORIGIN: ctx.origin };
  const files: { path: string; content: string }[] = (site.files ?? []).map((path) => ({ path, content: page(path) }));
  if (!site.no404) files.push({ path: '404.html', content: page('404.html') });
  if (site.redirects !== undefined) files.push({ path: '_redirects', content: fill(site.redirects, vars) });
  if (site.headers !== undefined) files.push({ path: '_headers', content: fill(site.headers, vars) });

  // A site, as on the peers: a lazy deploy of one servable file would make a single-file
  // project, whose file answers "/" (here 404.html, when a case deploys nothing else).
  const project = await t.http().post('/projects').set(asUser(session)).send({ name: slug, slug, type: 'static_site' });
  if (project.status !== 201) throw new Error(`creating ${slug}: ${project.status} ${JSON.stringify(project.body)}`);
  if (site.signingSecret) {
    const env = await t
      .http()
      .put(`/projects/${project.body.id}/env/API_SECRET`)
      .set(asUser(session))
      .send({ value: SIGNING_SECRET, targets: ['production', 'preview'] });
    if (env.status !== 200) throw new Error(`setting API_SECRET on ${slug}: ${env.status} ${JSON.stringify(env.body)}`);
  }

  const res = await t.http().post('/v1/deployments').set(bearer(token)).send({ project_slug: slug, files });
  let deployed: 'accepted' | 'refused';
  let why = '';
  if (res.status === 201) deployed = 'accepted';
  else if (res.status === 400 && ['invalid_redirects', 'invalid_headers'].includes(res.body.code)) {
    deployed = 'refused';
    why = `: ${String(res.body.message).slice(0, 200)}`;
  } else throw new Error(`deploy of ${site.id}: unexpected ${res.status} ${JSON.stringify(res.body)}`);

  const outcomes: CaseOutcome[] = [
    { id: `${site.id}#deploy`, agrees: deployed === site.deploy, detail: deployed === site.deploy ? '' : `deploy ${deployed}${why}`, source: site.source },
  ];
  for (const r of site.requests ?? []) {
    const id = `${site.id}#${r.id}`;
    if (deployed === 'refused') {
      outcomes.push({ id, agrees: false, detail: 'not deployed here (the deploy was refused)', source: site.source });
      continue;
    }
    const problems = compare(r.expect, await send(t, host, { ...r, path: fill(r.path, vars) }), vars);
    outcomes.push({ id, agrees: problems.length === 0, detail: problems.join('; '), source: site.source });
  }
  return outcomes;
}

/** Runs `tasks` with at most `limit` at once (the deploys hash and store files; the machine is shared). */
export async function pool<T>(items: T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
