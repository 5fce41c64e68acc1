import { randomBytes } from 'node:crypto';

import { Client } from 'pg';

import { BlobCollector } from '../../src/blobs/blob-collector.service';
import { IdempotencyPurge } from '../../src/common/idempotency/idempotency-purge.service';
import { type JobReport, type PeriodicJob } from '../../src/common/periodic-job';
import { ADVISORY_LOCKS } from '../../src/database/advisory-locks';
import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { GateAttemptsPurge } from '../../src/gates/gate-attempts-purge.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { registerUser } from '../helpers/identity';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Periodic maintenance, one job per module: the TTL sweep only expires deployments;
 * blob collection, the idempotency-key purge and the gate attempt-counter purge are
 * each their own job with their own advisory lock, so none waits on another's round.
 */
describe('Maintenance jobs: each module its own (e2e, real PostgreSQL)', () => {
  let t: TestApp;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp();
    workspaceId = (await registerUser(t)).workspaceId;
  });
  afterAll(() => t.close());

  const tag = () => randomBytes(6).toString('hex');
  // Leftovers of each kind, all past their lifetime.
  async function leftovers(): Promise<{ key: string; counter: string; sha256: string }> {
    const key = `old-${tag()}`;
    const counter = `gate-fail:${tag()}`;
    const sha256 = randomBytes(32).toString('hex');
    const longAgo = new Date(Date.now() - 2 * DAY);
    await t.dataSource.query(
      `INSERT INTO idempotency_keys (workspace_id, key, request_hash, response_status, response_body, created_at) VALUES ($1, $2, 'h', 201, '{}', $3)`,
      [workspaceId, key, longAgo],
    );
    await t.dataSource.query('INSERT INTO gate_rate_limits (key, points, expire) VALUES ($1, 3, $2)', [counter, longAgo.getTime()]);
    await t.dataSource.query('INSERT INTO blobs (sha256, size, stored, last_claimed_at) VALUES ($1, 1, false, $2)', [sha256, longAgo]);
    return { key, counter, sha256 };
  }
  async function remaining(l: { key: string; counter: string; sha256: string }) {
    const count = async (sql: string, param: string) => Number((await t.dataSource.query(sql, [param]))[0].n);
    return {
      idempotencyKey: await count('SELECT count(*) AS n FROM idempotency_keys WHERE key = $1', l.key),
      gateCounter: await count('SELECT count(*) AS n FROM gate_rate_limits WHERE key = $1', l.counter),
      blob: await count('SELECT count(*) AS n FROM blobs WHERE sha256 = $1', l.sha256),
    };
  }
  // Another instance in the middle of a round: it holds the job's lock on its own connection.
  async function holding<T>(lockId: number, work: () => Promise<T>): Promise<T> {
    const other = new Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [lockId]);
      return await work();
    } finally {
      await other.end();
    }
  }

  it('the TTL sweep expires deployments and leaves the other modules’ leftovers to their own jobs', async () => {
    const l = await leftovers();
    expect(await t.app.get(TtlSweeper).runOnce()).toMatchObject({ ran: true });
    expect(await remaining(l)).toEqual({ idempotencyKey: 1, gateCounter: 1, blob: 1 });
  });

  it('each purge runs while another instance holds the TTL sweep’s lock', async () => {
    const l = await leftovers();
    await holding(ADVISORY_LOCKS.ttlSweep, async () => {
      expect((await t.app.get(TtlSweeper).runOnce()).ran).toBe(false);
      expect((await t.app.get(IdempotencyPurge).runOnce()).keysPurged).toBeGreaterThanOrEqual(1);
      expect(await t.app.get(GateAttemptsPurge).runOnce()).toEqual({ ran: true });
      expect((await t.app.get(BlobCollector).runOnce()).ran).toBe(true);
    });
    expect(await remaining(l)).toEqual({ idempotencyKey: 0, gateCounter: 0, blob: 0 });
  });

  it.each<[string, () => PeriodicJob<JobReport> & { runOnce(): Promise<JobReport> }, number]>([
    ['BlobCollector', () => t.app.get(BlobCollector), ADVISORY_LOCKS.blobCollection],
    ['IdempotencyPurge', () => t.app.get(IdempotencyPurge), ADVISORY_LOCKS.idempotencyPurge],
    ['GateAttemptsPurge', () => t.app.get(GateAttemptsPurge), ADVISORY_LOCKS.gateAttemptsPurge],
  ])('%s runs on one instance at a time: it skips its round while another holds its lock', async (_name, job, lockId) => {
    const l = await leftovers();
    const before = await remaining(l);
    expect((await holding(lockId, () => job().runOnce())).ran).toBe(false);
    expect(await remaining(l)).toEqual(before);
    expect((await job().runOnce()).ran).toBe(true);
  });

  it('the gate counter purge waits on no counter a request holds (a form post holds two): it skips it until the next round', async () => {
    const longAgo = Date.now() - 2 * DAY;
    const held = `form-submit-address:${tag()}`;
    const free = `form-submit:${tag()}`;
    for (const key of [held, free]) await t.dataSource.query('INSERT INTO gate_rate_limits (key, points, expire) VALUES ($1, 3, $2)', [key, longAgo]);
    // A post's statement in the middle of its upsert: the row locked until it commits.
    const post = new Client({ connectionString: t.databaseUrl });
    await post.connect();
    try {
      await post.query('BEGIN');
      await post.query('SELECT 1 FROM gate_rate_limits WHERE key = $1 FOR UPDATE', [held]);
      const purge = t.app.get(GateAttemptsPurge).runOnce();
      const waited = await Promise.race([purge.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 3000))]);
      expect(waited).toBe(false);
      await post.query('COMMIT');
    } finally {
      await post.end();
    }
    const left = await t.dataSource.query('SELECT key FROM gate_rate_limits WHERE key = ANY($1)', [[held, free]]);
    expect(left).toEqual([{ key: held }]);
    await t.app.get(GateAttemptsPurge).runOnce();
    expect(await t.dataSource.query('SELECT key FROM gate_rate_limits WHERE key = ANY($1)', [[held, free]])).toEqual([]);
  });

  it('no two uses share an advisory lock id', () => {
    const ids = Object.values(ADVISORY_LOCKS);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
