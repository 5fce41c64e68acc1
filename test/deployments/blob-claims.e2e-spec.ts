import { createHash } from 'node:crypto';

import { BlobStore } from '../../src/blobs/blob-store.service';
import { Clock } from '../../src/common/time';
import { NO_FREE_QUOTAS, startTestApp, type TestApp } from '../helpers/app';
import { createApiToken, registerUser } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

const blob = (text: string) => {
  const bytes = Buffer.from(text);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, bytes };
};

/**
 * Which blobs a digest-only deploy may claim, on BlobStore itself (real repository,
 * real PostgreSQL): those its workspace uploaded or already deployed, stored, and
 * nobody else's.
 */
describe('BlobStore: claiming blobs for a digest-only deploy (service, real PostgreSQL)', () => {
  let t: TestApp;
  let blobs: BlobStore;
  let clock: Clock;
  let mine: { workspaceId: string; token: string };
  let theirs: { workspaceId: string; token: string };

  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: NO_FREE_QUOTAS } });
    blobs = t.app.get(BlobStore);
    clock = t.app.get(Clock);
    const a = await registerUser(t);
    const b = await registerUser(t);
    mine = { workspaceId: a.workspaceId, token: (await createApiToken(t, a, { scopes: ['deploy', 'read'] })).token };
    theirs = { workspaceId: b.workspaceId, token: (await createApiToken(t, b, { scopes: ['deploy', 'read'] })).token };
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  const claimedAt = async (sha256: string): Promise<number> => {
    const [row] = await t.dataSource.query('SELECT last_claimed_at FROM blobs WHERE sha256 = $1', [sha256]);
    return new Date(row.last_claimed_at).getTime();
  };

  it('claims a blob the workspace uploaded, with its size, and renews the claim', async () => {
    const b = blob('uploaded by me');
    await blobs.storeUpload(mine.workspaceId, b, () => b.bytes);
    const later = new Date(Date.now() + 60_000);
    jest.spyOn(clock, 'now').mockReturnValue(later);
    expect(await blobs.claimOwned(mine.workspaceId, [b.sha256])).toEqual(new Map([[b.sha256, b.size]]));
    expect(await claimedAt(b.sha256)).toBe(later.getTime());
  });

  it('claims a blob the workspace deployed without uploading it', async () => {
    const text = 'deployed inline by me';
    await deploySite(t, mine.token, 'claims-deployed', [{ path: 'index.html', content: text }]);
    expect(await blobs.claimOwned(mine.workspaceId, [blob(text).sha256])).toEqual(new Map([[blob(text).sha256, text.length]]));
  });

  it('does not claim another workspace’s blob, uploaded or deployed, and leaves its claim as it was', async () => {
    const uploaded = blob('uploaded by them');
    await blobs.storeUpload(theirs.workspaceId, uploaded, () => uploaded.bytes);
    const deployedText = 'deployed by them';
    await deploySite(t, theirs.token, 'claims-theirs', [{ path: 'index.html', content: deployedText }]);
    const before = await claimedAt(uploaded.sha256);
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 60_000));
    expect(await blobs.claimOwned(mine.workspaceId, [uploaded.sha256, blob(deployedText).sha256])).toEqual(new Map());
    expect(await claimedAt(uploaded.sha256)).toBe(before);
  });

  it('does not claim a blob whose object is not stored (an upload in progress, or never made)', async () => {
    const pending = blob('claimed by a deploy, not stored yet');
    // A deploy's claim row exists before its object is written.
    await t.dataSource.query('INSERT INTO blobs (sha256, size, stored, last_claimed_at) VALUES ($1, $2, false, now())', [pending.sha256, pending.size]);
    await t.dataSource.query('INSERT INTO workspace_blobs (workspace_id, sha256, size, created_at) VALUES ($1, $2, $3, now())', [
      mine.workspaceId,
      pending.sha256,
      pending.size,
    ]);
    expect(await blobs.claimOwned(mine.workspaceId, [pending.sha256, blob('never seen').sha256])).toEqual(new Map());
  });
});
