import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { Build, type BuildStatus, type FinishedStatus } from './build.entity';
import type { DetectedBuild, ResolvedCommit } from './pipeline/types';
import { BUILD_QUEUE, QUEUE_SCHEMA } from './queue/build-queue';

export type NewBuild = Pick<Build, 'id' | 'projectId' | 'workspaceId' | 'trigger' | 'ref' | 'branch' | 'pullRequest' | 'fork' | 'createdBy'>;

export interface BuildFilter {
  branch?: string;
  status?: BuildStatus;
}

/** What a builder writes when a build ends. */
export interface BuildOutcome {
  status: FinishedStatus;
  error: string | null;
  deploymentId?: string | null;
  url?: string | null;
}

const SNAPSHOT_BUILD = (projectId: string, workspaceId: string): NewBuild => ({
  id: 'bld_sqlsnapshot00000000000000',
  projectId,
  workspaceId,
  trigger: 'manual',
  ref: 'main',
  branch: 'main',
  pullRequest: null,
  fork: false,
  createdBy: 'usr_sqlsnapshot',
});

/** Statuses a build is still going in. */
const ACTIVE = `('queued', 'running')`;

/** `finished_at` and `duration_ms` of a build ending at parameter `now`: the duration counts from its start, null when it never started. */
const endedAt = (now: string) =>
  `finished_at = ${now}, duration_ms = CASE WHEN started_at IS NULL THEN NULL ELSE greatest(0, (extract(epoch FROM ${now}::timestamptz - started_at) * 1000)::int) END`;
const ENDED_AT = endedAt('$2');

/** Every query on `builds` (the build records); the log lines have their own (BuildLogRepository). */
@Injectable()
export class BuildsRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SNAPSHOT_BUILD(f.projectId, f.workspaceId)] })
  async insert(manager: EntityManager, values: NewBuild): Promise<Build> {
    const repo = manager.getRepository(Build);
    const build = repo.create({ ...values, status: 'queued' });
    await repo.insert(build);
    // createdAt and the defaults as the database set them.
    return (await repo.findOneBy({ id: values.id }))!;
  }

  @GenerateSql({ params: (f) => ['bld_none', f.projectId] })
  findInProject(id: string, projectId: string): Promise<Build | null> {
    return this.dataSource.getRepository(Build).findOneBy({ id, projectId });
  }

  @GenerateSql({ params: () => ['bld_none'] })
  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<Build | null> {
    return manager.getRepository(Build).findOneBy({ id });
  }

  /** Newest first, on IDX_builds_project_created. */
  @GenerateSql(
    { name: 'all', params: (f) => [f.projectId, {}, 1, 20] },
    { name: 'filtered', params: (f) => [f.projectId, { branch: 'main', status: 'ready' }, 1, 20] },
  )
  async page(projectId: string, filter: BuildFilter, page: number, limit: number): Promise<{ entities: Build[]; total: number }> {
    const [entities, total] = await this.dataSource.getRepository(Build).findAndCount({
      where: { projectId, ...(filter.branch !== undefined && { branch: filter.branch }), ...(filter.status !== undefined && { status: filter.status }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: (page - 1) * limit,
    });
    return { entities, total };
  }

  /**
   * Cancels the project's queued and running builds that a new build of `branch`, or of
   * pull request `pullRequest`, replaces; their builders see it on their next heartbeat.
   * Returns their ids.
   * A pull request's build replaces that pull request's builds, whatever their branch says
   * (null for one asked by hand before any webhook told its head branch), and a branch's
   * only the branch's own (`names`, from replacedNames; null for a pull request's build):
   * one push builds both, for two addresses. A build of a tag is asked with its name as the
   * branch and loses it once the clone found a tag: it is still the build of that name (`ref`).
   */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [f.manager, f.projectId, { branches: ['main', 'refs/tags/main'], tags: ['main', 'refs/tags/main'] }, null, new Date(0), 'replaced'],
  })
  async cancelReplaced(
    manager: EntityManager,
    projectId: string,
    names: { branches: string[]; tags: string[] } | null,
    pullRequest: number | null,
    now: Date,
    reason: string,
  ): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await manager.query(
      `UPDATE builds SET status = 'canceled', error = $4, ${ENDED_AT}
       WHERE project_id = $1 AND status IN ${ACTIVE} AND deployment_id IS NULL
         AND CASE WHEN $5::integer IS NULL THEN pull_request IS NULL AND (branch = ANY($3::text[]) OR (branch IS NULL AND ref = ANY($6::text[]))) ELSE pull_request = $5 END
       RETURNING id`,
      [projectId, now, names?.branches ?? [], reason, pullRequest, names?.tags ?? []],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Cancels the project's queued and running builds of a deleted branch (`pullRequest`
   * null: the branch's own builds, not pull requests from it) or of a closed pull request
   * (any head branch), in the alias removal's transaction: one finishing later would
   * otherwise put the alias back. Returns their ids.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId, 'feature', 7, new Date(0), 'closed'] })
  async cancelActiveOfAlias(
    manager: EntityManager,
    projectId: string,
    branch: string | null,
    pullRequest: number | null,
    now: Date,
    reason: string,
  ): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await manager.query(
      `UPDATE builds SET status = 'canceled', error = $4, ${ENDED_AT}
       WHERE project_id = $1 AND status IN ${ACTIVE} AND deployment_id IS NULL
         AND ($5::integer IS NOT NULL AND pull_request = $5::integer OR $5::integer IS NULL AND pull_request IS NULL AND branch = $3)
       RETURNING id`,
      [projectId, now, branch, reason, pullRequest],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Whether build `id` was started after build `other` (an alias then moves to it); true
   * when `other` is gone (deleted past the kept history).
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'bld_none', 'bld_other'] })
  async startedAfter(manager: EntityManager, id: string, other: string): Promise<boolean> {
    const rows: { after: boolean }[] = await manager.query(
      `SELECT coalesce((SELECT (b.created_at, b.id) > (o.created_at, o.id) FROM builds b, builds o WHERE b.id = $1 AND o.id = $2), true) AS after`,
      [id, other],
    );
    return rows[0].after;
  }

  /** Ends a queued or running build as `status`; null when it had already ended, or its output is deployed already (it ends `ready`). */
  @GenerateSql({ params: () => ['bld_none', new Date(0), 'canceled', 'canceled by a user'] })
  async endIfActive(
    id: string,
    now: Date,
    status: FinishedStatus,
    error: string | null,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Build | null> {
    const [rows]: [{ id: string }[], number] = await manager.query(
      `UPDATE builds SET status = $3, error = $4, ${ENDED_AT} WHERE id = $1 AND status IN ${ACTIVE} AND deployment_id IS NULL RETURNING id`,
      [id, now, status, error],
    );
    return rows.length ? this.findById(id, manager) : null;
  }

  /** A builder takes a queued build; false when it was canceled (or taken) meanwhile. */
  @GenerateSql({ params: () => ['bld_none', 'builder', new Date(0), new Date(0)] })
  async markRunning(id: string, builderId: string, now: Date, leaseUntil: Date, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE builds SET status = 'running', builder_id = $2, started_at = $3, lease_expires_at = $4 WHERE id = $1 AND status = 'queued' RETURNING id`,
      [id, builderId, now, leaseUntil],
    );
    return rows.length > 0;
  }

  /** The builder's heartbeat; false when the build is no longer running on it (canceled, or failed by the lease sweeper). */
  @GenerateSql({ params: () => ['bld_none', 'builder', new Date(0)] })
  async renewLease(id: string, builderId: string, leaseUntil: Date): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.dataSource.query(
      `UPDATE builds SET lease_expires_at = $3 WHERE id = $1 AND builder_id = $2 AND status = 'running' RETURNING id`,
      [id, builderId, leaseUntil],
    );
    return rows.length > 0;
  }

  /**
   * The commit the ref resolved to, and its branch: the clone's word for a ref asked by name
   * (`v1.0` is recorded as a branch when asked, and is none when the clone finds it is a tag);
   * a pull request keeps the head branch the forge named (it may live in a fork).
   */
  @GenerateSql({ params: () => ['bld_none', { sha: '0'.repeat(40), message: 'snapshot', branch: 'main' }] })
  async setResolved(id: string, commit: ResolvedCommit): Promise<void> {
    await this.dataSource.query(
      `UPDATE builds SET commit_sha = $2, commit_message = $3,
              branch = CASE WHEN pull_request IS NULL THEN $4 ELSE coalesce(branch, $4) END
        WHERE id = $1`,
      [id, commit.sha, commit.message, commit.branch],
    );
  }

  @GenerateSql({ params: () => ['bld_none', { framework: null, packageManager: null, installCommand: null, buildCommand: null, outputDirectory: '.' }] })
  async setDetected(id: string, detected: DetectedBuild): Promise<void> {
    await this.dataSource.query(`UPDATE builds SET detected = $2 WHERE id = $1`, [id, JSON.stringify(detected)]);
  }

  /** A builder ends its running build; null when it was no longer running (canceled meanwhile: the cancel stands). */
  @GenerateSql({ params: () => ['bld_none', 'builder', new Date(0), { status: 'failed', error: 'snapshot' }] })
  async finish(id: string, builderId: string, now: Date, outcome: BuildOutcome, manager: EntityManager = this.dataSource.manager): Promise<Build | null> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE builds SET status = $4, error = $5, deployment_id = coalesce($6, deployment_id), url = coalesce($7, url), lease_expires_at = NULL, ${ENDED_AT}
       WHERE id = $1 AND builder_id = $3 AND status = 'running' RETURNING id`,
      [id, now, builderId, outcome.status, outcome.error, outcome.deploymentId ?? null, outcome.url ?? null],
    );
    return rows.length ? this.findById(id, manager) : null;
  }

  /**
   * Records the deployment of a build that is still running on `builderId`, inside the
   * deploy's transaction; false when it was canceled, timed out or failed meanwhile (the
   * deploy then rolls back). From here on no cancel ends it: its output is what is live.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'bld_none', 'builder', 'dep_none'] })
  async claimDeploy(manager: EntityManager, id: string, builderId: string, deploymentId: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE builds SET deployment_id = $3 WHERE id = $1 AND builder_id = $2 AND status = 'running' AND deployment_id IS NULL RETURNING id`,
      [id, builderId, deploymentId],
    );
    return rows.length > 0;
  }

  /**
   * What the forge said of pull request `pullRequest` of the project in its newest build
   * (webhook builds carry it: its head branch, and whether it comes from a fork); null when
   * no build of it is known. Only builds made since the Git settings last changed: pull
   * request 5 of a repository connected before is not pull request 5 of this one.
   */
  @GenerateSql({ params: (f) => [f.projectId, 1] })
  async pullRequestOrigin(projectId: string, pullRequest: number): Promise<{ branch: string | null; fork: boolean } | null> {
    const [row]: { branch: string | null; fork: boolean }[] = await this.dataSource.query(
      `SELECT b.branch, b.fork FROM builds b JOIN project_git g ON g.project_id = b.project_id
       WHERE b.project_id = $1 AND b.pull_request = $2 AND b.created_at >= g.updated_at
       ORDER BY b.created_at DESC LIMIT 1`,
      [projectId, pullRequest],
    );
    return row ?? null;
  }

  /**
   * Whether a build that was not a fork's, of a branch, a tag or a pull request (not a bare
   * commit asked for by hand), checked out commit `sha` since the Git settings last changed:
   * then the commit is the repository's own, not only reachable through a fork's pull request.
   */
  @GenerateSql({ params: (f) => [f.projectId, '0'.repeat(40)] })
  async commitBuiltAsOwn(projectId: string, sha: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM builds b JOIN project_git g ON g.project_id = b.project_id
       WHERE b.project_id = $1 AND b.commit_sha = $2 AND b.ref <> $2 AND NOT b.fork AND b.created_at >= g.updated_at LIMIT 1`,
      [projectId, sha],
    );
    return rows.length > 0;
  }

  /** Whether a build of a fork's pull request made this deployment (its proxy rules may not sign: src/builds/build-proxy-secrets.ts). */
  @GenerateSql({ params: () => ['dep_none'] })
  async builtFromFork(deploymentId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM builds WHERE deployment_id = $1 AND fork LIMIT 1', [deploymentId]);
    return rows.length > 0;
  }

  /** Fails running builds whose builder stopped renewing the lease; returns their ids. */
  @GenerateSql({ params: () => [new Date(0), 'the builder stopped responding'] })
  async failExpiredLeases(now: Date, reason: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await manager.query(
      // One whose deploy committed before its builder stopped is live: it ends ready, as its builder would have ended it.
      `UPDATE builds SET status = CASE WHEN deployment_id IS NULL THEN 'failed' ELSE 'ready' END,
         error = CASE WHEN deployment_id IS NULL THEN $2 END, lease_expires_at = NULL, ${endedAt('$1')}
       WHERE status = 'running' AND lease_expires_at < $1 RETURNING id`,
      [now, reason],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Fails builds queued before `before` that no queue job will ever run: the process
   * stopped between the build's commit and its job's, or the job failed before the build
   * started (pg-boss retries no build job). Without a job table yet (pg-boss never
   * started here) no queued build has one. Returns their ids.
   */
  @GenerateSql({ params: () => [new Date(0), new Date(0), 'the build was never started'] })
  async failOrphanedQueued(now: Date, before: Date, reason: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const [{ queue }]: { queue: boolean }[] = await manager.query(`SELECT to_regclass('${QUEUE_SCHEMA}.job') IS NOT NULL AS queue`);
    const jobless = queue
      ? `AND NOT EXISTS (SELECT 1 FROM ${QUEUE_SCHEMA}.job j WHERE j.name = '${BUILD_QUEUE}' AND j.data->>'buildId' = builds.id AND j.state IN ('created', 'retry', 'active'))`
      : '';
    const [rows]: [{ id: string }[], number] = await manager.query(
      `UPDATE builds SET status = 'failed', error = $2, ${endedAt('$1')} WHERE status = 'queued' AND created_at < $3 ${jobless} RETURNING id`,
      [now, reason, before],
    );
    return rows.map((r) => r.id);
  }

  @GenerateSql({ params: () => [['bld_none']] })
  async markLogStored(ids: string[], manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.getRepository(Build).update({ id: In(ids) }, { logStored: true });
  }

  /**
   * Locks a build's row while its log is moved to storage (the builder and the sweeper may
   * both do it): whether the log is already stored, null when the build is gone. NO KEY
   * UPDATE, so the builder's appends (whose foreign key takes a KEY SHARE lock) go on.
   */
  @GenerateSql({ inTransaction: true, params: (f) => ['bld_none', f.manager] })
  async lockLogState(id: string, manager: EntityManager): Promise<{ logStored: boolean } | null> {
    const rows: { log_stored: boolean }[] = await manager.query('SELECT log_stored FROM builds WHERE id = $1 FOR NO KEY UPDATE', [id]);
    return rows.length ? { logStored: rows[0].log_stored } : null;
  }

  /** Finished builds whose log is still in chunks (their builder died before moving it). */
  @GenerateSql({ params: () => [10] })
  async finishedWithChunkedLog(batch: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM builds WHERE NOT log_stored AND status NOT IN ${ACTIVE} ORDER BY finished_at LIMIT $1`,
      [batch],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Deletes finished builds past the newest `keep` of their project; returns those whose
   * log object must go too. A fork's build that made a deployment still served stays: it
   * is what tells that deployment's proxy rules not to sign (builtFromFork).
   */
  @GenerateSql({ params: () => [100, 100] })
  async deleteBeyondNewest(keep: number, batch: number): Promise<{ id: string; logStored: boolean }[]> {
    const [rows]: [{ id: string; log_stored: boolean }[], number] = await this.dataSource.query(
      `DELETE FROM builds WHERE id IN (
         SELECT id FROM (SELECT id, status, fork, deployment_id, row_number() OVER (PARTITION BY project_id ORDER BY created_at DESC, id DESC) AS n FROM builds) ranked
         WHERE n > $1 AND status NOT IN ${ACTIVE}
           AND NOT (fork AND deployment_id IS NOT NULL AND EXISTS (SELECT 1 FROM deployments d WHERE d.id = ranked.deployment_id AND d.status <> 'expired'))
         LIMIT $2)
       RETURNING id, log_stored`,
      [keep, batch],
    );
    return rows.map((r) => ({ id: r.id, logStored: r.log_stored }));
  }
}
