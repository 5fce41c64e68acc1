import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import type { EnvTarget } from './build-inputs';
import { ProjectEnvVar, ProjectGit } from './git.entities';
import type { SealedSecret } from './git-secrets';

/** The settings a PUT writes; the token as `undefined` keeps the stored one, null removes it. */
export interface GitSettingsRow {
  repository: string;
  productionBranch: string;
  rootDirectory: string;
  installCommand: string | null;
  buildCommand: string | null;
  outputDirectory: string | null;
  nodeVersion: string | null;
}

const SAMPLE_SETTINGS: GitSettingsRow = {
  repository: 'https://git.example.com/site.git',
  productionBranch: 'main',
  rootDirectory: '',
  installCommand: null,
  buildCommand: 'npm run build',
  outputDirectory: 'dist',
  nodeVersion: '22',
};
const SAMPLE_SEALED: SealedSecret = { keyId: 'k1', nonce: Buffer.alloc(12), ciphertext: Buffer.alloc(20) };

/** An entity from a RETURNING * row (column names to properties; pg has already typed the values). */
function fromRow<T extends object>(dataSource: DataSource, entity: new () => T, row: Record<string, unknown>): T {
  const out = new entity() as Record<string, unknown>;
  for (const column of dataSource.getMetadata(entity).columns) out[column.propertyName] = row[column.databaseName];
  return out as T;
}

/** Every query on project_git and project_env_vars. The caller has already checked the project is the principal's. */
@Injectable()
export class GitRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: (f) => [f.projectId] })
  find(projectId: string): Promise<ProjectGit | null> {
    return this.dataSource.getRepository(ProjectGit).findOneBy({ projectId });
  }

  /**
   * Inserts or replaces the settings in one statement (two saves at once cannot both
   * insert). `token` undefined leaves the stored token as it is.
   */
  @GenerateSql(
    { name: 'keep token', inTransaction: true, params: (f) => [f.projectId, SAMPLE_SETTINGS, undefined] },
    { name: 'set token', inTransaction: true, params: (f) => [f.projectId, SAMPLE_SETTINGS, SAMPLE_SEALED] },
  )
  async upsert(projectId: string, settings: GitSettingsRow, token: SealedSecret | null | undefined): Promise<ProjectGit> {
    const tokenColumns =
      token === undefined ? {} : { tokenKeyId: token?.keyId ?? null, tokenNonce: token?.nonce ?? null, tokenCiphertext: token?.ciphertext ?? null };
    const repo = this.dataSource.getRepository(ProjectGit);
    const result = await repo
      .createQueryBuilder()
      .insert()
      .values({ projectId, ...settings, ...(token === undefined ? {} : tokenColumns) })
      .orUpdate(
        [
          'repository',
          'production_branch',
          'root_directory',
          'install_command',
          'build_command',
          'output_directory',
          'node_version',
          ...(token === undefined ? [] : ['token_key_id', 'token_nonce', 'token_ciphertext']),
          'updated_at',
        ],
        ['project_id'],
      )
      .returning('*')
      .execute();
    return fromRow(this.dataSource, ProjectGit, (result.raw as Record<string, unknown>[])[0]);
  }

  /** True when there was a row. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId] })
  async remove(projectId: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(ProjectGit).delete({ projectId });
    return (result.affected ?? 0) > 0;
  }

  /** The project's variables, by name. */
  @GenerateSql({ params: (f) => [f.projectId] })
  listEnv(projectId: string): Promise<ProjectEnvVar[]> {
    return this.dataSource.getRepository(ProjectEnvVar).find({ where: { projectId }, order: { name: 'ASC' } });
  }

  /** Inserts or replaces a variable in one statement. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, 'API_KEY', ['production'], SAMPLE_SEALED] })
  async upsertEnv(projectId: string, name: string, targets: EnvTarget[], value: SealedSecret): Promise<ProjectEnvVar> {
    const repo = this.dataSource.getRepository(ProjectEnvVar);
    const result = await repo
      .createQueryBuilder()
      .insert()
      .values({ projectId, name, targets, keyId: value.keyId, valueNonce: value.nonce, valueCiphertext: value.ciphertext })
      .orUpdate(['targets', 'key_id', 'value_nonce', 'value_ciphertext', 'updated_at'], ['project_id', 'name'])
      .returning('*')
      .execute();
    return fromRow(this.dataSource, ProjectEnvVar, (result.raw as Record<string, unknown>[])[0]);
  }

  /** True when there was such a variable. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, 'API_KEY'] })
  async removeEnv(projectId: string, name: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(ProjectEnvVar).delete({ projectId, name });
    return (result.affected ?? 0) > 0;
  }
}
