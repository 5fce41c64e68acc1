import type { EntityManager } from 'typeorm';

/**
 * Real rows the SQL snapshot test creates before it calls repository methods, so a
 * method's queries run as production runs them (a method whose first query finds
 * nothing would never show its second).
 */
export interface SqlFixture {
  userId: string;
  email: string;
  workspaceId: string;
  projectId: string;
  projectSlug: string;
  deploymentId: string;
  tokenId: string;
  /** A second project and its deployment, for examples that delete or change what they touch. */
  scratchProjectId: string;
  scratchDeploymentId: string;
  /** The data source's manager, for methods that take the transaction they run in. */
  manager: EntityManager;
}

export interface SqlExample {
  /** Names a variant when a method's SQL depends on its arguments (e.g. with and without a search term). */
  name?: string;
  /**
   * Runs the example inside a transaction that is rolled back, with `fixture.manager`
   * being that transaction's: for methods that lock rows (TypeORM sends no locking
   * query outside a transaction) and for writes the fixture should not keep.
   */
  inTransaction?: boolean;
  params: (fixture: SqlFixture) => unknown[];
}

const EXAMPLES = Symbol('statichost:generate-sql');

type Examples = Map<string, SqlExample[]>;

/**
 * Declares how the SQL snapshot test (test/database/sql-snapshots.e2e-spec.ts) calls a
 * repository method; what it sends to PostgreSQL is written to src/queries/<file>.sql, so a
 * reviewer sees every query change in the diff. Every public method of a `*.repository.ts`
 * class must carry one: the test fails on a method without it.
 */
export function GenerateSql(...examples: SqlExample[]): MethodDecorator {
  return (target, key) => {
    const proto = target as { [EXAMPLES]?: Examples };
    if (!Object.prototype.hasOwnProperty.call(proto, EXAMPLES)) proto[EXAMPLES] = new Map();
    proto[EXAMPLES]!.set(String(key), examples.length ? examples : [{ params: () => [] }]);
  };
}

/** The examples declared on a repository class, by method name. */
export function sqlExamples(repository: abstract new (...args: never[]) => unknown): Examples {
  return (repository.prototype as { [EXAMPLES]?: Examples })[EXAMPLES] ?? new Map();
}
