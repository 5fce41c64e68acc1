import { createHash } from 'node:crypto';

import { variantKey } from '../../src/blobs/blob-keys';
import { BlobStore } from '../../src/blobs/blob-store.service';
import { BlobVariants } from '../../src/blobs/blob-variants.service';
import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { StorageProvider } from '../../src/storage/storage.provider';
import { startTestApp, type TestApp } from '../helpers/app';
import { createApiToken, registerUser } from '../helpers/identity';
import { deploySite, fetchSite, site } from '../helpers/sites';

/** Compressible (HTML, well over the threshold) and different per call. */
const page = (tag: string) => `<!doctype html><title>${tag}</title>${`<p>${tag} lorem ipsum dolor sit amet</p>\n`.repeat(200)}`;
const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a site answers once its files are gone from storage, and ranges across versions. */
describe('Sites across versions and blob collection (e2e)', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    const owner = await registerUser(t);
    token = (await createApiToken(t, owner, { scopes: ['deploy'] })).token;
  });
  afterAll(() => t.close());

  /** The TTL sweep expires the deployment, then the collector takes every blob nothing live uses. */
  async function expireAndCollect(deploymentId: string): Promise<void> {
    await t.dataSource.query(`UPDATE deployments SET expires_at = now() - interval '1 hour' WHERE id = $1`, [deploymentId]);
    expect((await t.app.get(TtlSweeper).runOnce()).expired).toBeGreaterThanOrEqual(1);
    await t.app.get(BlobStore).collectGarbage(0);
  }

  it('answers 410 for an expired deployment with rule files after the collector took them', async () => {
    const dep = await deploySite(t, token, 'expired-rules', [
      { path: 'index.html', content: '<h1>short-lived</h1>' },
      { path: '_redirects', content: '/* /index.html 200\n' },
      { path: '_headers', content: '/*\n  X-Custom: yes\n' },
    ]);
    expect((await site(t, 'expired-rules').get('/deep/link').expect(200)).text).toContain('short-lived');
    await expireAndCollect(dep.id);
    const [rules] = await t.dataSource.query(`SELECT count(*)::int AS n FROM blobs WHERE sha256 = $1`, [sha256Of('/* /index.html 200\n')]);
    expect(rules.n).toBe(0);
    // An instance that never read this deployment (started since, or its memory let the rules go).
    const other = await startTestApp({ sibling: t });
    try {
      expect((await site(other, 'expired-rules').get('/deep/link')).status).toBe(410);
      // Whatever the method (its forms and proxy rules are not read either).
      expect((await site(other, 'expired-rules').post('/deep/link')).status).toBe(410);
      // Its own address too (a preview host reads the deployment the same way).
      expect((await fetchSite(other, dep.url, '/deep/link')).status).toBe(410);
    } finally {
      await other.close();
    }
  });

  it('serves content deployed again after its blob and compressed copies were collected', async () => {
    const body = page('collected then redeployed');
    const first = await deploySite(t, token, 'copies-first', [{ path: 'index.html', content: body }]);
    await site(t, 'copies-first').get('/').set('Accept-Encoding', 'identity').expect(200);
    const variants = t.app.get(BlobVariants);
    await variants.idle();
    expect(variants.peek(sha256Of(body))?.variants.br).toBeDefined();
    await expireAndCollect(first.id);
    // The collector tells this instance the copies are gone with the blob.
    expect(variants.peek(sha256Of(body))).toBeUndefined();

    await deploySite(t, token, 'copies-again', [{ path: 'index.html', content: body }]);
    const again = await site(t, 'copies-again').get('/').set('Accept-Encoding', 'br');
    expect(again.status).toBe(200);
    expect(again.text).toBe(body);
  });

  it('answers uncompressed when a compressed copy it knew of is gone from storage (collected by another instance)', async () => {
    const body = page('copy gone');
    await deploySite(t, token, 'copy-gone', [{ path: 'index.html', content: body }]);
    await site(t, 'copy-gone').get('/').set('Accept-Encoding', 'identity').expect(200);
    await t.app.get(BlobVariants).idle();
    const sha256 = sha256Of(body);
    expect(t.app.get(BlobVariants).peek(sha256)?.variants.br).toBeDefined();
    await t.app.get(StorageProvider).delete(variantKey(sha256, 'br'));

    const res = await site(t, 'copy-gone').get('/').set('Accept-Encoding', 'br');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Accept-Encoding/);
    expect(res.text).toBe(body);
    // Forgotten: the next answer asks the database again rather than the stale memory.
    expect(t.app.get(BlobVariants).peek(sha256)).toBeUndefined();
  });

  it('sends the whole file when If-Range names another version, and the range when it names this one', async () => {
    await deploySite(t, token, 'if-range', [{ path: 'data.txt', content: 'version one: 0123456789' }]);
    const v1 = await site(t, 'if-range').get('/data.txt').expect(200);
    await deploySite(t, token, 'if-range', [{ path: 'data.txt', content: 'version two: abcdefghij' }]);

    const stale = await site(t, 'if-range').get('/data.txt').set('Range', 'bytes=13-').set('If-Range', v1.headers.etag);
    expect(stale.status).toBe(200);
    expect(stale.text).toBe('version two: abcdefghij');

    const current = (await site(t, 'if-range').get('/data.txt').expect(200)).headers.etag;
    const fresh = await site(t, 'if-range').get('/data.txt').set('Range', 'bytes=13-').set('If-Range', current);
    expect(fresh.status).toBe(206);
    expect(fresh.text).toBe('abcdefghij');

    const weak = await site(t, 'if-range').get('/data.txt').set('Range', 'bytes=13-').set('If-Range', `W/${current}`);
    expect(weak.status).toBe(200);
  });
});
