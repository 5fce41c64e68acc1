import { type QueryRunner } from 'typeorm';

/**
 * Foreign keys that delete a row with the row it references (the entities'
 * CascadeManyToOne and CascadeOneToOne), in the SQL `migration:generate` writes for
 * them. A helper of the migrations, not one: index.ts lists those.
 *
 * Applied migrations call these: the SQL they emit must never change (a new kind of key
 * gets a new function). Checked by running every up() and down() before and after.
 */
export interface CascadeForeignKey {
  table: string;
  name: string;
  column: string;
  /** The referenced table, by its `id` unless `referencedColumn` names another column. */
  references: string;
  referencedColumn?: string;
}

/** Adds the keys, in order. */
export async function addCascadeForeignKeys(queryRunner: QueryRunner, keys: readonly CascadeForeignKey[]): Promise<void> {
  for (const { table, name, column, references, referencedColumn = 'id' } of keys) {
    await queryRunner.query(
      `ALTER TABLE "${table}" ADD CONSTRAINT "${name}" FOREIGN KEY ("${column}") REFERENCES "${references}"("${referencedColumn}") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}

/** Drops the keys in the reverse order, as the down() of the migration that added them. */
export async function dropForeignKeys(queryRunner: QueryRunner, keys: readonly CascadeForeignKey[]): Promise<void> {
  for (const { table, name } of [...keys].reverse()) await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${name}"`);
}
