import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, TimestampColumn } from '../database/columns';
import { Project } from '../projects/project.entity';
import type { DetectedBuild } from './pipeline/types';

export const BUILD_STATUSES = ['queued', 'running', 'ready', 'failed', 'canceled', 'timed_out'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];
/** A build in one of these has ended: nothing changes it any more. */
export const FINISHED_STATUSES = ['ready', 'failed', 'canceled', 'timed_out'] as const satisfies readonly BuildStatus[];
export type FinishedStatus = (typeof FINISHED_STATUSES)[number];
export const BUILD_TRIGGERS = ['manual', 'push', 'pull_request'] as const;
export type BuildTrigger = (typeof BUILD_TRIGGERS)[number];

export function isFinished(status: BuildStatus): status is FinishedStatus {
  return (FINISHED_STATUSES as readonly string[]).includes(status);
}

@Entity('builds')
@Check('CHK_builds_status', `"status" IN ('queued', 'running', 'ready', 'failed', 'canceled', 'timed_out')`)
@Check('CHK_builds_trigger', `"trigger" IN ('manual', 'push', 'pull_request')`)
@Index('IDX_builds_project_created', ['projectId', 'createdAt'])
@Index('IDX_builds_workspace_active', ['workspaceId'], { where: `"status" IN ('queued', 'running')` })
@Index('IDX_builds_lease', ['leaseExpiresAt'], { where: `"status" = 'running'` })
// The site proxy asks whether a deployment came from a fork's pull request (BuildsRepository.builtFromFork): few rows.
@Index('IDX_builds_fork_deployment', ['deploymentId'], { where: `"fork"` })
@Check('CHK_builds_forge_status', `"forge_status" IN ('pending', 'posted', 'failed')`)
export class Build {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_builds' })
  id: string;

  @Column('text', { name: 'project_id' })
  projectId: string;

  @CascadeManyToOne(() => Project, 'project_id', 'FK_builds_project')
  project?: Project;

  /** Denormalised from the project: the concurrency and minutes quotas count per workspace without a join. */
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text')
  status: BuildStatus;

  @Column('text')
  trigger: BuildTrigger;

  /** What was asked for: a branch, a tag or a commit. */
  @Column('text')
  ref: string;

  /** The branch built: the ref when it names one (known at once), else what the pipeline resolved (null for a tag or a bare commit). */
  @Column('text', { nullable: true })
  branch: string | null;

  @Column('text', { name: 'commit_sha', nullable: true })
  commitSha: string | null;

  @Column('text', { name: 'commit_message', nullable: true })
  commitMessage: string | null;

  @Column('integer', { name: 'pull_request', nullable: true })
  pullRequest: number | null;

  /** A pull request from another repository: built without the project's env vars (issue 29). */
  @Column('boolean', { default: false })
  fork: boolean;

  /** Whether the forge heard of this build (commit status, pull request comment): null when there is nobody to tell (no access token). */
  @Column('text', { name: 'forge_status', nullable: true })
  forgeStatus: 'pending' | 'posted' | 'failed' | null;

  /** Why the forge could not be told, when forgeStatus is failed. */
  @Column('text', { name: 'forge_error', nullable: true })
  forgeError: string | null;

  @Column('text', { name: 'deployment_id', nullable: true })
  deploymentId: string | null;

  @Column('text', { nullable: true })
  url: string | null;

  @Column('jsonb', { nullable: true })
  detected: DetectedBuild | null;

  @Column('text', { nullable: true })
  error: string | null;

  /** `usr_…` or `tok_…`: who started it (the deploy is made in their name). */
  @Column('text', { name: 'created_by' })
  createdBy: string;

  /** The builder running it (host and process), for operators reading the table. */
  @Column('text', { name: 'builder_id', nullable: true })
  builderId: string | null;

  /** Renewed by the builder while it runs; past it, the lease sweeper fails the build. */
  @TimestampColumn('lease_expires_at', { nullable: true })
  leaseExpiresAt: Date | null;

  /** true once the whole log is in the storage provider (build-logs/<id>.log) and its chunks are gone. */
  @Column('boolean', { name: 'log_stored', default: false })
  logStored: boolean;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn('started_at', { nullable: true })
  startedAt: Date | null;

  @TimestampColumn('finished_at', { nullable: true })
  finishedAt: Date | null;

  @Column('integer', { name: 'duration_ms', nullable: true })
  durationMs: number | null;
}
