import { Column, Entity, PrimaryColumn } from 'typeorm';

import { BigintColumn, TimestampColumn } from '../database/columns';

/**
 * A stored object, keyed by the SHA-256 of its bytes. The row is the lock that
 * keeps the garbage collector and a deploy reusing the object from racing.
 */
@Entity('blobs')
export class Blob {
  @PrimaryColumn('text')
  sha256: string;

  @BigintColumn()
  size: number;

  /** False until the object is known to be in the store. */
  @Column('boolean', { default: false })
  stored: boolean;

  /** Last time a deploy claimed it; the collector leaves recently claimed blobs alone. */
  @TimestampColumn('last_claimed_at')
  lastClaimedAt: Date;

  /** Bytes of the stored Brotli copy (`<key>.br`); null when there is none (not computed yet, or not worth it). */
  @BigintColumn({ name: 'br_size', nullable: true })
  brSize: number | null;

  /** Bytes of the stored gzip copy (`<key>.gz`); null when there is none. */
  @BigintColumn({ name: 'gzip_size', nullable: true })
  gzipSize: number | null;

  /** When the compressed copies were computed (null: not yet); sizes are final from then on. */
  @TimestampColumn('variants_at', { nullable: true })
  variantsAt: Date | null;
}
