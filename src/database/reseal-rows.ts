import type { DataSource } from 'typeorm';

/** A sealed value as its row holds it. */
export interface SealedValue {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
}

/** The cipher of a rotation: opens under any key it still has, seals under the newest. */
export interface RowCipher {
  /** The newest key's id: rows under any other are sealed again. */
  readonly currentKeyId: string;
  /** The plaintext, or null when the key is gone or the value does not authenticate. */
  open(sealed: SealedValue, aad: Buffer): string | null;
  seal(plaintext: string, aad: Buffer): SealedValue;
}

/**
 * Where one kind of sealed value lives: a table, its text primary key, the three sealed
 * columns, and the additional data the value was sealed with (it binds the value to its
 * row, so a value copied to another row does not open). Names are fixed identifiers of
 * ours, never input.
 */
export interface SealedColumns {
  /** What the rows hold, for the log ("webhook secret"). */
  what: string;
  table: string;
  id: string;
  keyId: string;
  nonce: string;
  ciphertext: string;
  aad(id: string): Buffer;
}

export interface ResealStats {
  /** Sealed again under the newest key. */
  resealed: number;
  /** Could not be opened (key gone, or altered): left as they are, logged. */
  failed: number;
  /** Still not under the newest key after the run. */
  remaining: number;
}

export interface ResealLog {
  error(fields: object, message: string): void;
}

const BATCH = 500;

/**
 * Seals every value of `columns` that is not under the newest key again under it
 * (`npm run leads:rotate`): walks the rows in key order, writes each only if its nonce
 * is unchanged since read (a value the app replaced meanwhile is already under the newest
 * key), leaves what it cannot open (logged), and may run again or beside the app.
 */
export async function resealRows(
  dataSource: DataSource,
  cipher: RowCipher,
  columns: SealedColumns,
  log: ResealLog,
  signal?: AbortSignal,
): Promise<ResealStats> {
  const { table, id, keyId, nonce, ciphertext } = columns;
  const stats: ResealStats = { resealed: 0, failed: 0, remaining: 0 };
  for (let after = ''; !signal?.aborted;) {
    const rows: { id: string; keyId: string; nonce: Buffer; ciphertext: Buffer }[] = await dataSource.query(
      `SELECT "${id}" AS id, "${keyId}" AS "keyId", "${nonce}" AS nonce, "${ciphertext}" AS ciphertext
         FROM "${table}" WHERE "${keyId}" <> $1 AND "${id}" > $2 ORDER BY "${id}" LIMIT $3`,
      [cipher.currentKeyId, after, BATCH],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const aad = columns.aad(row.id);
      const plain = cipher.open(row, aad);
      if (plain === null) {
        stats.failed++;
        log.error({ [columns.what]: row.id, keyId: row.keyId }, `the ${columns.what} of ${row.id} does not open under key ${row.keyId}: left as it is`);
        continue;
      }
      const sealed = cipher.seal(plain, aad);
      const [, count]: [unknown, number] = await dataSource.query(
        `UPDATE "${table}" SET "${keyId}" = $2, "${nonce}" = $3, "${ciphertext}" = $4 WHERE "${id}" = $1 AND "${nonce}" = $5`,
        [row.id, sealed.keyId, sealed.nonce, sealed.ciphertext, row.nonce],
      );
      if (count > 0) stats.resealed++;
    }
    after = rows[rows.length - 1].id;
  }
  const [{ n }]: { n: number }[] = await dataSource.query(`SELECT count(*)::int AS n FROM "${table}" WHERE "${keyId}" <> $1`, [cipher.currentKeyId]);
  stats.remaining = n;
  return stats;
}
