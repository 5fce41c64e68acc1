import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { variantKey } from '../../src/blobs/blob-keys';
import { BlobVariants } from '../../src/blobs/blob-variants.service';
import { StorageProvider } from '../../src/storage/storage.provider';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site, siteHost } from '../helpers/sites';

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const PASSWORD = 'compressed secrets 7';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes as they came over the wire (not decoded). */
  body: Buffer;
}

/** One request over real HTTP, body left exactly as sent (supertest would decode it). */
function fetchRaw(t: TestApp, slug: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: t.port, path, method, headers: { Host: siteHost(t, slug), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(res: Raw): Buffer {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.body);
  if (encoding === 'gzip') return gunzipSync(res.body);
  expect(encoding).toBeUndefined();
  return res.body;
}

/** ~50 KB of JavaScript that compresses like real code (repetitive, not random). */
const APP_JS = Array.from(
  { length: 1200 },
  (_, i) => `export function handler${i}(event) { return render(event.target, { id: ${i}, label: "item-${i % 37}" }); }\n`,
).join('');
const SMALL_CSS = 'body { margin: 0; font-family: system-ui, sans-serif; }\n'.repeat(10); // < 1 KB
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(4000, 7)]); // compresses well, but images are never compressed
// Compressible type, incompressible bytes: no copy saves 10 %, so none is stored.
const NOISE = randomBytes(4096);

/** Where a deployed file answers without a redirect: `.html` pages at their clean URL (canonical URLs). */
const canonicalPath = (name: string) => (name === 'index.html' ? '/' : `/${name.replace(/\.html$/, '')}`);

describe('Compression (e2e)', () => {
  let t: TestApp;
  let token: string;
  let session: Awaited<ReturnType<typeof registerUser>>;
  let variants: BlobVariants;
  let storage: StorageProvider;
  const appEtag = `"${sha(APP_JS)}"`;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_FILE_CACHE_MAX_FILE_BYTES: String(16 * 1024) } });
    variants = t.app.get(BlobVariants);
    storage = t.app.get(StorageProvider);
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy', 'read'] })).token;
    await deploySite(t, token, 'comp', [
      { path: 'index.html', content: '<!doctype html><title>x</title><script src="/app.js"></script>' },
      { path: 'app.js', content: APP_JS },
      { path: 'small.css', content: SMALL_CSS },
      { path: 'logo.png', content: PNG.toString('base64'), encoding: 'base64' },
      { path: 'noise.txt', content: NOISE.toString('base64'), encoding: 'base64' },
    ]);
    await variants.idle();
  });
  afterAll(() => t.close());

  describe('negotiation (RFC 9110 §12.5.3)', () => {
    it.each([
      ['br, gzip', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['gzip', 'gzip'],
      ['*', 'br'],
      ['identity;q=0, gzip', 'gzip'],
      ['gzip;q=0, br;q=0', undefined],
      ['deflate', undefined],
      ['*;q=0, identity', undefined],
    ])('Accept-Encoding: %s → %s', async (accept, expected) => {
      const res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(expected);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(decode(res).toString()).toBe(APP_JS);
      if (expected) {
        expect(res.body.length).toBeLessThan(APP_JS.length * 0.5);
        expect(res.headers['accept-ranges']).toBeUndefined();
      }
    });

    it('answers identity, still with Vary, to a request without Accept-Encoding', async () => {
      const res = await fetchRaw(t, 'comp', '/app.js');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.headers.etag).toBe(appEtag);
      expect(res.body.toString()).toBe(APP_JS);
    });

    it('answers 406 when identity is refused and no stored coding is acceptable', async () => {
      for (const accept of ['identity;q=0', 'deflate, identity;q=0', '*;q=0']) {
        const res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': accept });
        expect(res.status).toBe(406);
        expect(res.headers.vary).toBe('Accept-Encoding');
        expect(res.headers['cache-control']).toBe('no-store');
      }
    });

    it('gives each encoding its own ETag', async () => {
      const br = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br' });
      const gzip = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'gzip' });
      const identity = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'identity' });
      expect(br.headers.etag).toBe(`"${sha(APP_JS)}-br"`);
      expect(gzip.headers.etag).toBe(`"${sha(APP_JS)}-gzip"`);
      expect(identity.headers.etag).toBe(appEtag);
    });
  });

  describe('conditional and range requests', () => {
    it('answers 304 for any encoding’s ETag, naming the one the client holds', async () => {
      const brTag = `"${sha(APP_JS)}-br"`;
      const gzipTag = `"${sha(APP_JS)}-gzip"`;
      let res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br, gzip', 'If-None-Match': brTag });
      expect(res.status).toBe(304);
      expect(res.headers.etag).toBe(brTag);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.headers['content-encoding']).toBeUndefined();
      res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br, gzip', 'If-None-Match': `W/${gzipTag}` });
      expect(res.status).toBe(304);
      expect(res.headers.etag).toBe(gzipTag);
      res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'gzip', 'If-None-Match': appEtag });
      expect(res.status).toBe(304);
      expect(res.headers.etag).toBe(appEtag);
      res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br', 'If-None-Match': `"${sha('other')}-br"` });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
    });

    it('answers Range requests from the identity bytes, without Content-Encoding', async () => {
      const res = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br, gzip', Range: 'bytes=100-199' });
      expect(res.status).toBe(206);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-range']).toBe(`bytes 100-199/${APP_JS.length}`);
      expect(res.headers.etag).toBe(appEtag);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.body.toString()).toBe(APP_JS.slice(100, 200));
      const unsatisfiable = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br', Range: `bytes=${APP_JS.length + 10}-` });
      expect(unsatisfiable.status).toBe(416);
      expect(unsatisfiable.headers['content-encoding']).toBeUndefined();
    });

    it('gives HEAD the exact length of the encoding GET would send', async () => {
      for (const accept of ['br', 'gzip', 'identity']) {
        const get = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': accept });
        const head = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': accept }, 'HEAD');
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        expect(head.headers['content-length']).toBe(String(get.body.length));
        expect(head.headers['content-encoding']).toBe(get.headers['content-encoding']);
        expect(head.headers.etag).toBe(get.headers.etag);
      }
    });
  });

  describe('what is compressed', () => {
    it('stores Brotli and gzip copies beside the blob and records their sizes', async () => {
      const [row] = await t.dataSource.query('SELECT size, br_size, gzip_size, variants_at FROM blobs WHERE sha256 = $1', [sha(APP_JS)]);
      expect(row.variants_at).not.toBeNull();
      const br = await fetchRaw(t, 'comp', '/app.js', { 'Accept-Encoding': 'br' });
      expect(Number(row.br_size)).toBe(br.body.length);
      expect((await storage.head(variantKey(sha(APP_JS), 'br')))?.size).toBe(Number(row.br_size));
      expect((await storage.head(variantKey(sha(APP_JS), 'gzip')))?.size).toBe(Number(row.gzip_size));
    });

    it('never compresses files of 1 KB or less (no Vary either)', async () => {
      const res = await fetchRaw(t, 'comp', '/small.css', { 'Accept-Encoding': 'br, gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBeUndefined();
      expect(res.body.toString()).toBe(SMALL_CSS);
      expect(await storage.exists(variantKey(sha(SMALL_CSS), 'br'))).toBe(false);
    });

    it('never compresses types that are compressed already, whatever the bytes', async () => {
      const res = await fetchRaw(t, 'comp', '/logo.png', { 'Accept-Encoding': 'br, gzip' });
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBeUndefined();
      expect(res.body.equals(PNG)).toBe(true);
      expect(await storage.exists(variantKey(sha(PNG), 'gzip'))).toBe(false);
      // Nothing to negotiate, so refusing identity changes nothing.
      expect((await fetchRaw(t, 'comp', '/logo.png', { 'Accept-Encoding': 'identity;q=0' })).status).toBe(200);
    });

    it('stores no copy that saves less than 10 % (and says so: identity with Vary)', async () => {
      const [row] = await t.dataSource.query('SELECT br_size, gzip_size, variants_at FROM blobs WHERE sha256 = $1', [sha(NOISE)]);
      expect(row).toEqual({ br_size: null, gzip_size: null, variants_at: expect.any(Date) });
      expect(await storage.exists(variantKey(sha(NOISE), 'br'))).toBe(false);
      expect(await storage.exists(variantKey(sha(NOISE), 'gzip'))).toBe(false);
      const res = await fetchRaw(t, 'comp', '/noise.txt', { 'Accept-Encoding': 'br, gzip' });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.body.equals(NOISE)).toBe(true);
    });

    it('streams a compressed copy larger than the memory cache’s per-file limit', async () => {
      const big = Array.from({ length: 40_000 }, (_, i) => `line ${i} ${sha(String(i)).slice(0, 8)}\n`).join(''); // ~0.7 MB, br ~> 16 KB
      await deploySite(t, token, 'big-text', [{ path: 'data.csv', content: big }]);
      await variants.idle();
      const res = await fetchRaw(t, 'big-text', '/data.csv', { 'Accept-Encoding': 'gzip' });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.body.length).toBeGreaterThan(16 * 1024);
      expect(decode(res).toString()).toBe(big);
    });
  });

  it('serves identity until the copies exist, then compresses a file it serves that has none (after a restart)', async () => {
    const content = APP_JS.replace(/item/g, 'entry');
    await deploySite(t, token, 'late', [{ path: 'late.js', content }]);
    await variants.idle();
    // As if deployed before compression existed: no copies, no record, a fresh instance.
    await t.dataSource.query('UPDATE blobs SET br_size = NULL, gzip_size = NULL, variants_at = NULL WHERE sha256 = $1', [sha(content)]);
    await storage.delete(variantKey(sha(content), 'br'));
    await storage.delete(variantKey(sha(content), 'gzip'));
    const second = await startTestApp({ sibling: t });
    try {
      const first = await fetchRaw(second, 'late', '/late.js', { 'Accept-Encoding': 'br, gzip' });
      expect(first.status).toBe(200);
      expect(first.headers['content-encoding']).toBeUndefined();
      expect(first.headers.vary).toBe('Accept-Encoding');
      await second.app.get(BlobVariants).idle();
      const later = await fetchRaw(second, 'late', '/late.js', { 'Accept-Encoding': 'br, gzip' });
      expect(later.headers['content-encoding']).toBe('br');
      expect(decode(later).toString()).toBe(content);
    } finally {
      await second.close();
    }
  });

  it('applies the same rules on a gated site, keeping answers private with Vary: Accept-Encoding, Cookie', async () => {
    await t
      .http()
      .post('/projects')
      .set(asUser(session))
      .send({ name: 'Gated', slug: 'comp-gated', type: 'static_site', gate_type: 'password', password: PASSWORD })
      .expect(201);
    await deploySite(t, token, 'comp-gated', [{ path: 'app.js', content: APP_JS }]);
    await variants.idle();
    const login = await site(t, 'comp-gated').post('/.statichost/gate').type('form').send({ password: PASSWORD, next: '/' }).expect(303);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const br = await fetchRaw(t, 'comp-gated', '/app.js', { 'Accept-Encoding': 'br', Cookie: cookie });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('private, no-store');
    expect(br.headers.vary).toBe('Accept-Encoding, Cookie');
    expect(decode(br).toString()).toBe(APP_JS);
    const identity = await fetchRaw(t, 'comp-gated', '/app.js', { Cookie: cookie });
    expect(identity.headers.vary).toBe('Accept-Encoding, Cookie');
    const notModified = await fetchRaw(t, 'comp-gated', '/app.js', { 'Accept-Encoding': 'br', Cookie: cookie, 'If-None-Match': br.headers.etag as string });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.vary).toBe('Accept-Encoding, Cookie');
    const refused = await fetchRaw(t, 'comp-gated', '/app.js', { 'Accept-Encoding': 'identity;q=0', Cookie: cookie });
    expect(refused.status).toBe(406);
    expect(refused.headers['cache-control']).toBe('private, no-store');
    expect(refused.headers.vary).toBe('Accept-Encoding, Cookie');
    // Without the cookie: the gate page, never the file in any encoding.
    const gate = await fetchRaw(t, 'comp-gated', '/app.js', { 'Accept-Encoding': 'br' });
    expect(gate.status).toBe(401);
    expect(gate.headers['content-encoding']).toBeUndefined();
  });

  it('serves a real build (swagger-ui-dist) compressed: same bytes once decoded, far fewer on the wire', async () => {
    const dist = join(require.resolve('swagger-ui-dist/package.json'), '..');
    const names = [
      'index.html',
      'index.css',
      'swagger-initializer.js',
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
      'oauth2-redirect.html',
      'oauth2-redirect.js',
      'favicon-32x32.png',
    ];
    const originals = new Map(names.map((n) => [n, readFileSync(join(dist, n))]));
    await deploySite(
      t,
      token,
      'swagger',
      names.map((n) => ({ path: n, content: originals.get(n)!.toString('base64'), encoding: 'base64' as const })),
    );
    await variants.idle();
    let raw = 0;
    let wire = 0;
    for (const [name, bytes] of originals) {
      const res = await fetchRaw(t, 'swagger', canonicalPath(name), { 'Accept-Encoding': 'br, gzip' });
      expect(res.status).toBe(200);
      expect(decode(res).equals(bytes)).toBe(true);
      if (bytes.length > 1024 && !name.endsWith('.png')) expect(res.headers['content-encoding']).toBe('br');
      raw += bytes.length;
      wire += res.body.length;
    }
    // Brotli at quality 11 takes the bundle from 1.6 MB to ~350 KB.
    expect(wire).toBeLessThan(raw * 0.3);
    const page = await fetchRaw(t, 'swagger', '/', { 'Accept-Encoding': 'gzip' });
    expect(decode(page).equals(originals.get('index.html')!)).toBe(true);
  }, 180_000);
});
