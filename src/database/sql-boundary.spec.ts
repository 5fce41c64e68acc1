import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Issue 16's boundary: SQL (raw or through TypeORM) lives in repositories
 * (`*.repository.ts`) and migrations only, so each table's queries are in one place
 * and in the committed snapshot (src/queries/). Database plumbing that is not about any
 * table sits in src/database/ or is listed in INFRASTRUCTURE with its reason.
 */
const SRC = join(__dirname, '..');

const DATA_ACCESS =
  /\.query\s*[<(]|createQueryBuilder|getRepository\s*\(|@InjectRepository|\b(?:manager|m|em|tx|trx)\.(?:find\w*|save|insert|update|delete|count\w*|exists\w*|increment|decrement|upsert|remove|softDelete|sum|query)\s*[<(]/;

/** Not table access: locks, liveness, connection-level reads. */
const INFRASTRUCTURE: Record<string, string> = {
  'builds/queue/build-queue.ts': "pg-boss's own SQL (its pgboss schema) run over the app's pool",
  'common/idempotency/instance-lease.service.ts': "session advisory lock held on its own connection as the process's proof of life",
  'common/periodic-job.ts': 'advisory lock that makes a job single-runner',
  'health/health.service.ts': 'SELECT 1 liveness probe',
  'sites/site-cache.service.ts': 'LISTEN for site-change notices on its own pg connection',
};

function offenders(): string[] {
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.repository.ts') && !f.startsWith('database/'),
  );
  return files.filter((f) => DATA_ACCESS.test(readFileSync(join(SRC, f), 'utf8'))).sort();
}

describe('SQL lives in repositories', () => {
  it('no service, controller or helper queries the database itself', () => {
    const found = offenders().filter((f) => !(f in INFRASTRUCTURE));
    expect(found).toEqual([]);
  });

  it('the infrastructure list names only files that still need it', () => {
    const found = new Set(offenders());
    expect(Object.keys(INFRASTRUCTURE).filter((f) => !found.has(f))).toEqual([]);
  });
});
