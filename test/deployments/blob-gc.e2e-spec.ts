import { createHash } from 'node:crypto';

import { blobKey } from '../../src/blobs/blob-keys';
import { BlobStore } from '../../src/blobs/blob-store.service';
import { Clock } from '../../src/common/time';
import { StorageProvider } from '../../src/storage/storage.provider';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createApiToken, registerUser } from '../helpers/identity';

const HOUR = 60 * 60 * 1000;
const blob = (text: string) => {
  const bytes = Buffer.from(text);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, bytes };
};

/**
 * The collector against a deploy that reuses an object, each interleaving forced
 * by hand (the deploy suite covers the same through HTTP).
 */
describe('Garbage collection vs concurrent deploys (e2e)', () => {
  let t: TestApp;
  let blobs: BlobStore;
  let storage: StorageProvider;
  let clock: Clock;
  let grace: number;

  beforeAll(async () => {
    t = await startTestApp();
    blobs = t.app.get(BlobStore);
    storage = t.app.get(StorageProvider);
    clock = t.app.get(Clock);
    grace = t.config.BLOB_GC_GRACE_SECONDS * 1000;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  /** An object stored long ago that no deployment references: fair game for the collector. */
  async function staleOrphan(text: string) {
    const b = blob(text);
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() - grace - HOUR));
    await blobs.ensureStored([b]);
    jest.restoreAllMocks();
    expect(await storage.exists(blobKey(b.sha256))).toBe(true);
    return b;
  }

  it('collects a stale unreferenced object', async () => {
    const b = await staleOrphan('orphan');
    expect(await blobs.collectGarbage(grace)).toBeGreaterThanOrEqual(1);
    expect(await storage.exists(blobKey(b.sha256))).toBe(false);
    expect(await t.dataSource.query('SELECT 1 FROM blobs WHERE sha256 = $1', [b.sha256])).toEqual([]);
  });

  it('leaves an object alone once a deploy has claimed it, before its manifest commits', async () => {
    const b = await staleOrphan('claimed by a deploy');
    await blobs.ensureStored([b]); // phase 1 of a deploy: the claim
    await blobs.collectGarbage(grace);
    expect(await storage.exists(blobKey(b.sha256))).toBe(true);
  });

  it('re-uploads when the collector wins the row lock first', async () => {
    const b = await staleOrphan('collector first');
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      // The collector has locked the row and is deleting the object...
      await runner.query('SELECT sha256 FROM blobs WHERE sha256 = $1 FOR UPDATE', [b.sha256]);
      await storage.delete(blobKey(b.sha256));
      await runner.query('DELETE FROM blobs WHERE sha256 = $1', [b.sha256]);
      // ...while a deploy claims the same content: its upsert waits for the lock.
      const claiming = blobs.ensureStored([b]);
      await new Promise((r) => setTimeout(r, 100));
      await runner.commitTransaction();
      expect(await claiming).toBe(1);
    } finally {
      await runner.release();
    }
    expect(await storage.exists(blobKey(b.sha256))).toBe(true);
    const [row] = await t.dataSource.query('SELECT stored FROM blobs WHERE sha256 = $1', [b.sha256]);
    expect(row.stored).toBe(true);
  });

  it('makes a deploy store again what the collector took between its claim and its commit', async () => {
    const session = await registerUser(t);
    const { token } = await createApiToken(t, session, { scopes: ['deploy'] });
    const content = 'taken between claim and commit';
    const b = blob(content);
    const realLock = blobs.lockStored.bind(blobs);
    let stolen = false;
    jest.spyOn(blobs, 'lockStored').mockImplementation(async (manager, shas) => {
      if (!stolen) {
        stolen = true;
        // The collector, with a stale view of the claim, removes the object right now.
        await storage.delete(blobKey(b.sha256));
        await t.dataSource.query('DELETE FROM blobs WHERE sha256 = $1', [b.sha256]);
      }
      return realLock(manager, shas);
    });
    const res = await t
      .http()
      .post('/v1/deployments')
      .set(bearer(token))
      .send({ project_slug: 'gc-retry', files: [{ path: 'index.html', content }] });
    expect(res.status).toBe(201);
    expect(blobs.lockStored).toHaveBeenCalledTimes(2);
    expect(await storage.exists(blobKey(b.sha256))).toBe(true);
  });

  it('holds off the collector while a deploy’s commit has the object locked', async () => {
    const b = await staleOrphan('locked by a commit');
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      expect(await blobs.lockStored(runner.manager, [b.sha256])).toEqual([]);
      // SKIP LOCKED: the collector passes over it instead of waiting or deleting.
      await blobs.collectGarbage(grace);
      expect(await storage.exists(blobKey(b.sha256))).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
