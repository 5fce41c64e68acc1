import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Compressed copies of a blob (Brotli, gzip): their sizes, and when they were computed. */
export class BlobVariants1763770012000 implements MigrationInterface {
  name = 'BlobVariants1763770012000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "blobs" ADD "br_size" bigint`);
    await queryRunner.query(`ALTER TABLE "blobs" ADD "gzip_size" bigint`);
    await queryRunner.query(`ALTER TABLE "blobs" ADD "variants_at" TIMESTAMP(3) WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "blobs" DROP COLUMN "variants_at"`);
    await queryRunner.query(`ALTER TABLE "blobs" DROP COLUMN "gzip_size"`);
    await queryRunner.query(`ALTER TABLE "blobs" DROP COLUMN "br_size"`);
  }
}
