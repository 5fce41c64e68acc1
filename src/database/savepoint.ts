import type { EntityManager, QueryRunner } from 'typeorm';

/**
 * Runs `work` under a savepoint of `manager`'s transaction. When it throws, the transaction
 * goes back to the savepoint and carries on (its locks kept), and `recover` answers with the
 * error: for work whose effects outside the database cannot be rolled back, which the
 * database must then be made to tell truly, under the same locks. An audit entry recorded
 * under it is kept even when it rolls back (entries are written at the commit: TypeORM does
 * not see this savepoint), so `work` records none.
 */
export async function underSavepoint<T>(manager: EntityManager, name: string, work: () => Promise<T>, recover: (err: unknown) => Promise<T>): Promise<T> {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`savepoint name ${name} is not a plain identifier`);
  await manager.query(`SAVEPOINT ${name}`);
  try {
    return await work();
  } catch (err) {
    await manager.query(`ROLLBACK TO SAVEPOINT ${name}`);
    return recover(err);
  }
}

/**
 * How deep `runner`'s transaction is nested: 1 in a plain transaction, more while TypeORM's
 * nested transactions hold savepoints. A commit or rollback hook seeing more than 1 is a
 * savepoint's release or rollback, not the transaction's end.
 */
export function transactionDepth(runner: QueryRunner): number {
  return (runner as unknown as { transactionDepth?: number }).transactionDepth ?? 1;
}
