import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { ADVISORY_LOCKS } from '../../database/advisory-locks';
import { GenerateSql } from '../../database/generate-sql';

export interface StoredKey {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
  /** False once the process that claimed the key has gone (its InstanceLease lock is free); true when unknown. */
  claimant_alive: boolean;
}

/** Every query on idempotency_keys. A claim of a key is identified by its `created_at`. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** False when the key is already claimed. */
  @GenerateSql({ params: (f) => [f.workspaceId, 'sql-snapshot', 'hash', new Date(0), 1] })
  async claim(workspaceId: string, key: string, requestHash: string, now: Date, claimedBy: number | null): Promise<boolean> {
    const inserted = await this.dataSource.query(
      `INSERT INTO idempotency_keys (workspace_id, key, request_hash, created_at, claimed_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING key`,
      [workspaceId, key, requestHash, now, claimedBy],
    );
    return inserted.length > 0;
  }

  @GenerateSql({ params: (f) => [f.workspaceId, 'sql-snapshot'] })
  async find(workspaceId: string, key: string): Promise<StoredKey | null> {
    // The claimant's lease lock, looked up only for a key still in progress (pg_locks is not free to read).
    const [row]: StoredKey[] = await this.dataSource.query(
      `SELECT request_hash, response_status, response_body, created_at,
         (response_status IS NOT NULL OR claimed_by IS NULL OR EXISTS (
           SELECT 1 FROM pg_locks
           WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $3::int::oid AND objid = claimed_by::oid
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         )) AS claimant_alive
       FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
      [workspaceId, key, ADVISORY_LOCKS.instanceLeaseClass],
    );
    return row ?? null;
  }

  /** Removes that one claim (a stale one being taken over), not a newer claim of the same key. */
  @GenerateSql({ params: (f) => [f.workspaceId, 'sql-snapshot', new Date(1)] })
  async deleteClaim(workspaceId: string, key: string, createdAt: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND created_at = $3', [workspaceId, key, createdAt]);
  }

  /** That one claim only: a retry may have taken the key over meanwhile (its claim has another created_at). */
  @GenerateSql({ params: (f) => [f.workspaceId, 'sql-snapshot', new Date(0), 200, { ok: true }] })
  async complete(workspaceId: string, key: string, createdAt: Date, status: number, body: unknown): Promise<void> {
    await this.dataSource.query(
      'UPDATE idempotency_keys SET response_status = $4, response_body = $5 WHERE workspace_id = $1 AND key = $2 AND created_at = $3',
      [workspaceId, key, createdAt, status, JSON.stringify(body)],
    );
  }

  /** In the caller's transaction; false when the claim is no longer in progress (taken over, or completed). */
  @GenerateSql({ params: (f) => [f.manager, { workspaceId: f.workspaceId, key: 'sql-snapshot', createdAt: new Date(0) }, 200, { ok: true }] })
  async completeClaim(manager: EntityManager, claim: { workspaceId: string; key: string; createdAt: Date }, status: number, body: unknown): Promise<boolean> {
    const [, count]: [unknown, number] = await manager.query(
      `UPDATE idempotency_keys SET response_status = $4, response_body = $5
       WHERE workspace_id = $1 AND key = $2 AND created_at = $3 AND response_status IS NULL`,
      [claim.workspaceId, claim.key, claim.createdAt, status, JSON.stringify(body)],
    );
    return count === 1;
  }

  /**
   * Only while in progress (a completed key stays for replays), and only that one claim: a
   * request whose key a retry took over must not delete the retry's claim when it fails.
   */
  @GenerateSql({ params: (f) => [f.workspaceId, 'sql-snapshot', new Date(0)] })
  async abandon(workspaceId: string, key: string, createdAt: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND created_at = $3 AND response_status IS NULL', [
      workspaceId,
      key,
      createdAt,
    ]);
  }

  /** Returns how many were deleted. */
  @GenerateSql({ params: () => [new Date(0)] })
  async deleteCreatedBefore(cutoff: Date): Promise<number> {
    const [, count] = await this.dataSource.query('DELETE FROM idempotency_keys WHERE created_at < $1', [cutoff]);
    return count ?? 0;
  }
}
