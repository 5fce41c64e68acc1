import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/time';
import { StorageProvider } from '../storage/storage.provider';

export interface BlobContent {
  sha256: string;
  size: number;
  bytes: Buffer;
}

/** Object key of a blob: derived from its hash only, never from a user's path. */
export function blobKey(sha256: string): string {
  return `blobs/${sha256.slice(0, 2)}/${sha256}`;
}

const UPLOAD_CONCURRENCY = 8;

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(runners);
}

/**
 * Content-addressed objects and the protocol that keeps a deploy and the garbage
 * collector from racing:
 *  1. a deploy claims its blobs (upsert, `last_claimed_at = now`) before uploading
 *     the missing ones, so the collector (which only takes blobs unclaimed for the
 *     grace period) leaves them alone;
 *  2. the deploy's commit locks every blob row FOR SHARE and re-checks it is stored,
 *     so a collector that won the race is noticed and the deploy claims again;
 *  3. the collector locks a row FOR UPDATE, re-checks it is unreferenced and stale
 *     with a fresh statement, deletes the object and then the row, in one transaction.
 */
@Injectable()
export class BlobStore {
  private readonly logger = new Logger(BlobStore.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly storage: StorageProvider,
    private readonly clock: Clock,
  ) {}

  /** Claims every blob and uploads those not yet stored. Returns how many objects were written. */
  async ensureStored(blobs: BlobContent[]): Promise<number> {
    if (blobs.length === 0) return 0;
    const rows: { sha256: string; stored: boolean }[] = await this.dataSource.query(
      `INSERT INTO blobs (sha256, size, stored, last_claimed_at)
       SELECT sha, size, false, $3 FROM unnest($1::text[], $2::bigint[]) AS t(sha, size)
       ON CONFLICT (sha256) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
       RETURNING sha256, stored`,
      [blobs.map((b) => b.sha256), blobs.map((b) => b.size), this.clock.now()],
    );
    const stored = new Set(rows.filter((r) => r.stored).map((r) => r.sha256));
    const missing = blobs.filter((b) => !stored.has(b.sha256));
    await inParallel(missing, UPLOAD_CONCURRENCY, (b) => this.storage.put(blobKey(b.sha256), b.bytes, b.size));
    if (missing.length > 0) {
      await this.dataSource.query('UPDATE blobs SET stored = true WHERE sha256 = ANY($1::text[])', [missing.map((b) => b.sha256)]);
    }
    return missing.length;
  }

  /**
   * Inside a deploy's transaction: locks the blobs so the collector cannot take them
   * before the manifest referencing them commits. Returns the hashes that are gone.
   */
  async lockStored(manager: EntityManager, sha256s: string[]): Promise<string[]> {
    const rows: { sha256: string }[] = await manager.query(
      'SELECT sha256 FROM blobs WHERE sha256 = ANY($1::text[]) AND stored ORDER BY sha256 FOR SHARE',
      [sha256s],
    );
    const present = new Set(rows.map((r) => r.sha256));
    return sha256s.filter((s) => !present.has(s));
  }

  /**
   * Deletes objects no live or archived deployment references and no deploy has
   * claimed within the grace period. Safe to run beside deploys (see class comment).
   */
  async collectGarbage(graceMs: number, batch = 500): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - graceMs);
    const candidates: { sha256: string }[] = await this.dataSource.query(
      `SELECT b.sha256 FROM blobs b
       WHERE b.last_claimed_at < $1 AND NOT EXISTS (
         SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
         WHERE f.sha256 = b.sha256 AND d.status <> 'expired')
       LIMIT $2`,
      [cutoff, batch],
    );
    let deleted = 0;
    for (const { sha256 } of candidates) {
      const done = await this.dataSource.transaction(async (m) => {
        const locked = await m.query('SELECT sha256 FROM blobs WHERE sha256 = $1 AND last_claimed_at < $2 FOR UPDATE SKIP LOCKED', [
          sha256,
          cutoff,
        ]);
        if (locked.length === 0) return false;
        // A fresh statement: sees every manifest committed while we waited for the lock.
        const referenced = await m.query(
          `SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
           WHERE f.sha256 = $1 AND d.status <> 'expired' LIMIT 1`,
          [sha256],
        );
        if (referenced.length > 0) return false;
        await this.storage.delete(blobKey(sha256));
        await m.query('DELETE FROM blobs WHERE sha256 = $1', [sha256]);
        return true;
      });
      if (done) deleted++;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} unreferenced objects`);
    return deleted;
  }
}
