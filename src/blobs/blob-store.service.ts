import type { Readable } from 'node:stream';

import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { underSavepoint } from '../database/savepoint';
import { StorageProvider } from '../storage/storage.provider';
import { blobKey, variantKey } from './blob-keys';
import { BlobVariants } from './blob-variants.service';
import { BlobsRepository } from './blobs.repository';

export interface BlobContent {
  sha256: string;
  size: number;
  bytes: Buffer;
}

const UPLOAD_CONCURRENCY = 8;
/**
 * How long an upload proves the workspace has a blob's bytes, for claims that keep it (a
 * digest deploy naming it, a PUT answered without reading the body). Without an end, a
 * workspace could keep any amount of never-deployed bytes stored, uncounted by its plan's
 * storage, by sending a bodiless PUT or a refused deploy within every grace period. After
 * it, the bytes must be sent again (which renews it); a blob the workspace deployed needs
 * no upload at all.
 */
export const UPLOAD_PROOF_MS = 24 * 60 * 60 * 1000;

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
    private readonly rows: BlobsRepository,
    private readonly storage: StorageProvider,
    private readonly clock: Clock,
    private readonly variants: BlobVariants,
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
    const skip = new Set(
      await this.rows.freshlyClaimed(
        blobs.map((b) => b.sha256),
        freshAfter,
      ),
    );
    const toClaim = blobs.filter((b) => !skip.has(b.sha256));
    if (toClaim.length === 0) return 0;
    const rows = await this.rows.claim(toClaim, now);
    const stored = new Set(rows.filter((r) => r.stored).map((r) => r.sha256));
    const missing = toClaim.filter((b) => !stored.has(b.sha256));
    await inParallel(missing, UPLOAD_CONCURRENCY, (b) => this.storage.put(blobKey(b.sha256), b.bytes, b.size));
    if (missing.length > 0) {
      await this.rows.markStored(missing.map((b) => b.sha256));
    }
    return missing.length;
  }

  /**
   * Inside a deploy's transaction: locks the blobs so the collector cannot take them
   * before the manifest referencing them commits. Returns the hashes that are gone.
   */
  async lockStored(manager: EntityManager, sha256s: string[]): Promise<string[]> {
    const present = new Set(await this.rows.lockStored(manager, sha256s));
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
      const written = !(await this.rows.claimOne(blob, now));
      if (written) await this.storage.put(blobKey(blob.sha256), open(), blob.size);
      // Only the writer may mark the row stored (see BlobsRepository.recordUpload).
      if (await this.rows.recordUpload(workspaceId, blob, now, written)) return { written };
      if (attempt >= UPLOAD_ATTEMPTS) throw new Error(`blob ${blob.sha256} was collected during its upload ${attempt} times`);
    }
  }

  /**
   * Claims blobs a digest-only deploy names, if `workspaceId` may use them: it
   * uploaded them within UPLOAD_PROOF_MS (workspace_blobs) or already deployed them. Returns the size of
   * each claimed blob; a hash absent from the result is unknown to the workspace
   * or no longer stored. The claim, one UPDATE, is atomic against the collector:
   * either it waited for a collector holding the row (which then is gone, so the
   * blob counts as missing) or the collector's re-check sees the fresh claim.
   */
  async claimOwned(workspaceId: string, sha256s: string[]): Promise<Map<string, number>> {
    if (sha256s.length === 0) return new Map();
    const now = this.clock.now();
    return this.rows.claimOwned(workspaceId, sha256s, now, new Date(now.getTime() - UPLOAD_PROOF_MS));
  }

  /**
   * Deletes objects no live or archived deployment references and no deploy has
   * claimed within the grace period. Safe to run beside deploys (see class comment).
   */
  async collectGarbage(graceMs: number, batch = 500): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - graceMs);
    const candidates = await this.rows.garbageCandidates(cutoff, batch);
    let deleted = 0;
    for (const sha256 of candidates) {
      let objectGone = false;
      let partial = false;
      let done: boolean;
      try {
        done = await this.dataSource.transaction(async (m) => {
          const locked = await this.rows.lockForCollection(m, sha256, cutoff);
          if (!locked) return false;
          // A fresh statement: sees every manifest committed while we waited for the lock.
          if (await this.rows.isReferenced(m, sha256)) return false;
          // Storage cannot roll back: past this point a failure must leave a row that tells the
          // truth, written under the same lock (no deploy may claim the bytes in between).
          return underSavepoint(
            m,
            'collect_blob',
            async () => {
              // The compressed copies first (the compressor records them under a lock on this row), the object last.
              if (locked.br_size !== null) await this.storage.delete(variantKey(sha256, 'br'));
              if (locked.gzip_size !== null) await this.storage.delete(variantKey(sha256, 'gzip'));
              await this.storage.delete(blobKey(sha256));
              objectGone = true;
              await this.rows.delete(m, sha256);
              return true;
            },
            async (err) => {
              // The copies may be gone either way; the object too once its delete returned.
              await this.rows.markCollectedPart(m, sha256, objectGone);
              partial = true;
              this.logger.warn(
                `blob ${sha256}: collection stopped part way (${(err as Error).message}); ${objectGone ? 'marked not stored' : 'its compressed copies forgotten'}`,
              );
              return false;
            },
          );
        });
      } catch (err) {
        // The commit (or the database) failed after the object's delete: say so in a statement of its own, if the database lets us.
        if (objectGone)
          await this.rows
            .markCollectedPart(this.dataSource.manager, sha256, true)
            .catch((e: Error) => this.logger.error(`blob ${sha256}: deleted from storage, its row still says stored: ${e.message}`));
        throw err;
      }
      // What this instance knew of its compressed copies is stale too.
      if (partial) this.variants.forget(sha256);
      if (done) {
        deleted++;
        // Deployed again, the content is a new row whose copies are not made yet.
        this.variants.forget(sha256);
      }
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} unreferenced objects`);
    return deleted;
  }
}
