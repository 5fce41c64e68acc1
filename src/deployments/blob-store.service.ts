import { Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import type { StoredEncoding } from '../sites/rules/encoding';
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

/** Object key of a blob's compressed copy: beside the blob, derived from the hash only. */
export function variantKey(sha256: string, encoding: StoredEncoding): string {
  return `${blobKey(sha256)}.${encoding === 'br' ? 'br' : 'gz'}`;
}

const UPLOAD_CONCURRENCY = 8;
/** Attempts of an upload whose blob the collector takes between claim and record (rare). */
const UPLOAD_ATTEMPTS = 3;

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
 *  1. a deploy claims its blobs (upsert, `last_claimed_at = now`; a claim younger
 *     than half the grace period counts as made) before uploading the missing ones,
 *     so the collector (which only takes blobs unclaimed for the grace period)
 *     leaves them alone;
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
    private readonly config: AppConfig,
  ) {}

  /** Claims every blob and uploads those not yet stored. Returns how many objects were written. */
  async ensureStored(blobs: BlobContent[]): Promise<number> {
    if (blobs.length === 0) return 0;
    const now = this.clock.now();
    // A blob stored and claimed within half the grace period needs no new claim: the
    // collector leaves it alone for at least that long, and a re-deploy of 1,000
    // unchanged files then writes no blob rows at all.
    const freshAfter = new Date(now.getTime() - (this.config.BLOB_GC_GRACE_SECONDS * 1000) / 2);
    const fresh: { sha256: string }[] = await this.dataSource.query(
      'SELECT sha256 FROM blobs WHERE sha256 = ANY($1::text[]) AND stored AND last_claimed_at > $2',
      [blobs.map((b) => b.sha256), freshAfter],
    );
    const skip = new Set(fresh.map((r) => r.sha256));
    const toClaim = blobs.filter((b) => !skip.has(b.sha256));
    if (toClaim.length === 0) return 0;
    const rows: { sha256: string; stored: boolean }[] = await this.dataSource.query(
      `INSERT INTO blobs (sha256, size, stored, last_claimed_at)
       SELECT sha, size, false, $3 FROM unnest($1::text[], $2::bigint[]) AS t(sha, size)
       ON CONFLICT (sha256) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
       RETURNING sha256, stored`,
      [toClaim.map((b) => b.sha256), toClaim.map((b) => b.size), now],
    );
    const stored = new Set(rows.filter((r) => r.stored).map((r) => r.sha256));
    const missing = toClaim.filter((b) => !stored.has(b.sha256));
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
   * Stores an upload (PUT /v1/blobs) whose bytes were already checked against its
   * hash, and records that `workspaceId` owns it. Same claim as a deploy: the row
   * is claimed before the object is written, so the collector leaves a fresh
   * upload alone for the grace period even though no deployment references it yet.
   * `open` gives the bytes, read only when the object is not stored yet.
   * Returns whether this call wrote the object.
   */
  async storeUpload(workspaceId: string, blob: { sha256: string; size: number }, open: () => Buffer | Readable): Promise<{ written: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const [claim]: { stored: boolean }[] = await this.dataSource.query(
        `INSERT INTO blobs (sha256, size, stored, last_claimed_at) VALUES ($1, $2, false, $3)
         ON CONFLICT (sha256) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
         RETURNING stored`,
        [blob.sha256, blob.size, now],
      );
      const written = !claim.stored;
      if (written) await this.storage.put(blobKey(blob.sha256), open(), blob.size);
      // One statement, so one round trip: mark stored and record the owner, atomically.
      // Only the writer may mark the row stored: a row re-created by someone else's
      // claim after the collector took ours is stored when *their* upload finishes.
      const [{ recorded }]: { recorded: boolean }[] = await this.dataSource.query(
        `WITH claimed AS (
           UPDATE blobs SET stored = stored OR $3, last_claimed_at = $2 WHERE sha256 = $1 AND (stored OR $3) RETURNING sha256
         ), owner AS (
           INSERT INTO workspace_blobs (workspace_id, sha256, size, created_at)
           SELECT $4, sha256, $5, $2 FROM claimed ON CONFLICT (workspace_id, sha256) DO NOTHING
         )
         SELECT EXISTS (SELECT 1 FROM claimed) AS recorded`,
        [blob.sha256, now, written, workspaceId, blob.size],
      );
      if (recorded) return { written };
      if (attempt >= UPLOAD_ATTEMPTS) throw new Error(`blob ${blob.sha256} was collected during its upload ${attempt} times`);
    }
  }

  /**
   * Claims blobs a digest-only deploy names, if `workspaceId` may use them: it
   * uploaded them (workspace_blobs) or already deployed them. Returns the size of
   * each claimed blob; a hash absent from the result is unknown to the workspace
   * or no longer stored. The claim, one UPDATE, is atomic against the collector:
   * either it waited for a collector holding the row (which then is gone, so the
   * blob counts as missing) or the collector's re-check sees the fresh claim.
   */
  async claimOwned(workspaceId: string, sha256s: string[]): Promise<Map<string, number>> {
    if (sha256s.length === 0) return new Map();
    const [rows]: [{ sha256: string; size: string }[], number] = await this.dataSource.query(
      `UPDATE blobs b SET last_claimed_at = $3
       WHERE b.sha256 = ANY($1::text[]) AND b.stored AND (
         EXISTS (SELECT 1 FROM workspace_blobs w WHERE w.workspace_id = $2 AND w.sha256 = b.sha256)
         OR EXISTS (SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
                    WHERE f.sha256 = b.sha256 AND d.workspace_id = $2))
       RETURNING b.sha256, b.size`,
      [sha256s, workspaceId, this.clock.now()],
    );
    return new Map(rows.map((r) => [r.sha256, Number(r.size)]));
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
        const locked: { br_size: string | null; gzip_size: string | null }[] = await m.query(
          'SELECT br_size, gzip_size FROM blobs WHERE sha256 = $1 AND last_claimed_at < $2 FOR UPDATE SKIP LOCKED',
          [sha256, cutoff],
        );
        if (locked.length === 0) return false;
        // A fresh statement: sees every manifest committed while we waited for the lock.
        const referenced = await m.query(
          `SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
           WHERE f.sha256 = $1 AND d.status <> 'expired' LIMIT 1`,
          [sha256],
        );
        if (referenced.length > 0) return false;
        await this.storage.delete(blobKey(sha256));
        // Its compressed copies go with it (the compressor records them under a lock on this row).
        if (locked[0].br_size !== null) await this.storage.delete(variantKey(sha256, 'br'));
        if (locked[0].gzip_size !== null) await this.storage.delete(variantKey(sha256, 'gzip'));
        await m.query('DELETE FROM blobs WHERE sha256 = $1', [sha256]);
        return true;
      });
      if (done) deleted++;
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} unreferenced objects`);
    return deleted;
  }
}
