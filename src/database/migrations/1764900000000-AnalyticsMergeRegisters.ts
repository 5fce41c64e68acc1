import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The analytics flush merges visitor sketches inside PostgreSQL: it sends only the registers
 * its new visitors raised (index and rank), and this function raises them in the stored
 * sketch. Before, the flush read every touched sketch (16 KB each) and wrote it back as one
 * bytea[] parameter, which node-postgres sends as hex text: 10,000 sketches made a 328 MB
 * string (a second of the event loop), and past 16,383 the string was longer than V8
 * allows, so the flush failed on every retry. `zeros` is an empty sketch of the app's size
 * (a placeholder row holds an empty bytea until its first merge).
 */
export class AnalyticsMergeRegisters1764900000000 implements MigrationInterface {
  name = 'AnalyticsMergeRegisters1764900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION analytics_merge_registers(sketch bytea, zeros bytea, indexes int[], ranks int[]) RETURNS bytea
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
      DECLARE
        merged bytea := CASE WHEN length(sketch) = 0 THEN zeros ELSE sketch END;
      BEGIN
        FOR i IN 1 .. coalesce(cardinality(indexes), 0) LOOP
          IF get_byte(merged, indexes[i]) < ranks[i] THEN
            merged := set_byte(merged, indexes[i], ranks[i]);
          END IF;
        END LOOP;
        RETURN merged;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION analytics_merge_registers(bytea, bytea, int[], int[])`);
  }
}
