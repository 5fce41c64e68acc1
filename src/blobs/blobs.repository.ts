import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

const SHA = 'a'.repeat(64);

export interface BlobVariantSizes {
  br_size: string | null;
  gzip_size: string | null;
}

/**
 * Every query on `blobs` and `workspace_blobs` (who uploaded what). The claim and
 * collection protocol these statements implement is described on BlobStore; the
 * statements that must see manifests (a blob already deployed, a blob still
 * referenced) read `deployment_files` in the same statement, which is what makes
 * them atomic against a concurrent deploy or collector.
 */
@Injectable()
export class BlobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Of `sha256s`, those stored and claimed after `freshAfter`. */
  @GenerateSql({ params: () => [[SHA], new Date(0)] })
  async freshlyClaimed(sha256s: string[], freshAfter: Date): Promise<string[]> {
    const fresh: { sha256: string }[] = await this.dataSource.query(
      'SELECT sha256 FROM blobs WHERE sha256 = ANY($1::text[]) AND stored AND last_claimed_at > $2',
      [sha256s, freshAfter],
    );
    return fresh.map((r) => r.sha256);
  }

  /** Claims every blob (creating the row of a new one, not stored yet); says which are stored. */
  @GenerateSql({ params: () => [[{ sha256: SHA, size: 1 }], new Date(0)] })
  claim(blobs: { sha256: string; size: number }[], now: Date): Promise<{ sha256: string; stored: boolean }[]> {
    return this.dataSource.query(
      `INSERT INTO blobs (sha256, size, stored, last_claimed_at)
       SELECT sha, size, false, $3 FROM unnest($1::text[], $2::bigint[]) AS t(sha, size)
       ON CONFLICT (sha256) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
       RETURNING sha256, stored`,
      [blobs.map((b) => b.sha256), blobs.map((b) => b.size), now],
    );
  }

  /**
   * A collection stopped part way: its compressed copies may be gone, and with `objectGone`
   * the object too. The row must not go on saying they are there: a deploy of the bytes
   * would skip the upload and reference nothing, and a compressed answer would look for a
   * copy that is not there (the compressor makes them again once they are forgotten).
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SHA, true] })
  async markCollectedPart(manager: EntityManager, sha256: string, objectGone: boolean): Promise<void> {
    await manager.query('UPDATE blobs SET stored = stored AND NOT $2, br_size = NULL, gzip_size = NULL, variants_at = NULL WHERE sha256 = $1', [
      sha256,
      objectGone,
    ]);
  }

  @GenerateSql({ params: () => [[SHA]] })
  async markStored(sha256s: string[]): Promise<void> {
    await this.dataSource.query('UPDATE blobs SET stored = true WHERE sha256 = ANY($1::text[])', [sha256s]);
  }

  /** Inside a deploy's transaction: locks the stored ones FOR SHARE and returns them. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, [SHA]] })
  async lockStored(manager: EntityManager, sha256s: string[]): Promise<string[]> {
    const rows: { sha256: string }[] = await manager.query('SELECT sha256 FROM blobs WHERE sha256 = ANY($1::text[]) AND stored ORDER BY sha256 FOR SHARE', [
      sha256s,
    ]);
    return rows.map((r) => r.sha256);
  }

  /** An upload's claim (creating the row when new); returns whether the object is stored already. */
  @GenerateSql({ params: () => [{ sha256: SHA, size: 1 }, new Date(0)] })
  async claimOne(blob: { sha256: string; size: number }, now: Date): Promise<boolean> {
    const [claim]: { stored: boolean }[] = await this.dataSource.query(
      `INSERT INTO blobs (sha256, size, stored, last_claimed_at) VALUES ($1, $2, false, $3)
       ON CONFLICT (sha256) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at
       RETURNING stored`,
      [blob.sha256, blob.size, now],
    );
    return claim.stored;
  }

  /**
   * After an upload: marks the blob stored (only the writer may) and records that the
   * workspace owns it. False when the row is gone or not stored by anyone (collected
   * during the upload).
   */
  @GenerateSql({ params: (f) => [f.workspaceId, { sha256: SHA, size: 1 }, new Date(0), false] })
  async recordUpload(workspaceId: string, blob: { sha256: string; size: number }, now: Date, written: boolean): Promise<boolean> {
    // One statement, so one round trip: mark stored and record the owner, atomically.
    // Only the writer may mark the row stored: a row re-created by someone else's
    // claim after the collector took ours is stored when *their* upload finishes.
    const [{ recorded }]: { recorded: boolean }[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE blobs SET stored = stored OR $3, last_claimed_at = $2 WHERE sha256 = $1 AND (stored OR $3) RETURNING sha256
       ), owner AS (
         INSERT INTO workspace_blobs (workspace_id, sha256, size, created_at)
         SELECT $4, sha256, $5, $2 FROM claimed ON CONFLICT (workspace_id, sha256) DO UPDATE SET created_at = EXCLUDED.created_at
       )
       SELECT EXISTS (SELECT 1 FROM claimed) AS recorded`,
      [blob.sha256, now, written, workspaceId, blob.size],
    );
    return recorded;
  }

  /**
   * Claims the blobs `workspaceId` may use (it uploaded them since `uploadedAfter`, or a live
   * or archived deployment of its holds them) and returns their sizes. One UPDATE, atomic
   * against the collector. An expired deployment's bytes are not counted as storage, so they
   * do not make a claim either: renewed by bodiless PUTs, they could be kept for ever uncounted.
   */
  @GenerateSql({ params: (f) => [f.workspaceId, [SHA], new Date(0), new Date(0)] })
  async claimOwned(workspaceId: string, sha256s: string[], now: Date, uploadedAfter: Date): Promise<Map<string, number>> {
    const [rows]: [{ sha256: string; size: string }[], number] = await this.dataSource.query(
      `UPDATE blobs b SET last_claimed_at = $3
       WHERE b.sha256 = ANY($1::text[]) AND b.stored AND (
         EXISTS (SELECT 1 FROM workspace_blobs w WHERE w.workspace_id = $2 AND w.sha256 = b.sha256 AND w.created_at > $4)
         OR EXISTS (SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
                    WHERE f.sha256 = b.sha256 AND d.workspace_id = $2 AND d.status <> 'expired'))
       RETURNING b.sha256, b.size`,
      [sha256s, workspaceId, now, uploadedAfter],
    );
    return new Map(rows.map((r) => [r.sha256, Number(r.size)]));
  }

  /** Blobs unclaimed since `cutoff` that no live or archived deployment references. */
  @GenerateSql({ params: () => [new Date(0), 500] })
  async garbageCandidates(cutoff: Date, batch: number): Promise<string[]> {
    const candidates: { sha256: string }[] = await this.dataSource.query(
      `SELECT b.sha256 FROM blobs b
       WHERE b.last_claimed_at < $1 AND NOT EXISTS (
         SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
         WHERE f.sha256 = b.sha256 AND d.status <> 'expired')
       LIMIT $2`,
      [cutoff, batch],
    );
    return candidates.map((r) => r.sha256);
  }

  /** The collector's lock on a blob still unclaimed since `cutoff`; undefined when claimed or held. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SHA, new Date(0)] })
  async lockForCollection(manager: EntityManager, sha256: string, cutoff: Date): Promise<BlobVariantSizes | undefined> {
    const locked: BlobVariantSizes[] = await manager.query(
      'SELECT br_size, gzip_size FROM blobs WHERE sha256 = $1 AND last_claimed_at < $2 FOR UPDATE SKIP LOCKED',
      [sha256, cutoff],
    );
    return locked[0];
  }

  /** Whether a live or archived deployment's manifest names the blob. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SHA] })
  async isReferenced(manager: EntityManager, sha256: string): Promise<boolean> {
    const referenced = await manager.query(
      `SELECT 1 FROM deployment_files f JOIN deployments d ON d.id = f.deployment_id
       WHERE f.sha256 = $1 AND d.status <> 'expired' LIMIT 1`,
      [sha256],
    );
    return referenced.length > 0;
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SHA] })
  async delete(manager: EntityManager, sha256: string): Promise<void> {
    await manager.query('DELETE FROM blobs WHERE sha256 = $1', [sha256]);
  }

  /** The compressed copies' sizes; `variants_at` null while they are still to be computed. */
  @GenerateSql({ params: () => [SHA] })
  async variantsOf(sha256: string): Promise<(BlobVariantSizes & { variants_at: Date | null }) | undefined> {
    const rows: (BlobVariantSizes & { variants_at: Date | null })[] = await this.dataSource.query(
      'SELECT br_size, gzip_size, variants_at FROM blobs WHERE sha256 = $1',
      [sha256],
    );
    return rows[0];
  }

  /** A stored blob's size and copies, for the compressor. */
  @GenerateSql({ params: () => [SHA] })
  async storedForCompression(sha256: string): Promise<(BlobVariantSizes & { size: string; variants_at: Date | null }) | undefined> {
    const [row]: (BlobVariantSizes & { size: string; variants_at: Date | null })[] = await this.dataSource.query(
      'SELECT size, variants_at, br_size, gzip_size FROM blobs WHERE sha256 = $1 AND stored',
      [sha256],
    );
    return row;
  }

  /**
   * The compressor's lock while it writes and records the copies: KEY SHARE keeps the
   * collector (FOR UPDATE SKIP LOCKED) away without holding up deploys (FOR SHARE).
   * False when the blob was collected or its copies were recorded meanwhile.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SHA] })
  async lockForVariants(manager: EntityManager, sha256: string): Promise<boolean> {
    const locked = await manager.query('SELECT 1 FROM blobs WHERE sha256 = $1 AND stored AND variants_at IS NULL FOR KEY SHARE', [sha256]);
    return locked.length > 0;
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SHA, { br: 1 }, new Date(0)] })
  async recordVariants(manager: EntityManager, sha256: string, sizes: { br?: number; gzip?: number }, now: Date): Promise<void> {
    await manager.query('UPDATE blobs SET br_size = $2, gzip_size = $3, variants_at = $4 WHERE sha256 = $1', [
      sha256,
      sizes.br ?? null,
      sizes.gzip ?? null,
      now,
    ]);
  }
}
