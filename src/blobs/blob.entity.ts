import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A stored object, keyed by the SHA-256 of its bytes. The row is the lock that
 * keeps the garbage collector and a deploy reusing the object from racing.
 */
@Entity('blobs')
export class Blob {
  @PrimaryColumn('text')
  sha256: string;

  @Column('bigint', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  size: number;

  /** False until the object is known to be in the store. */
  @Column('boolean', { default: false })
  stored: boolean;

  /** Last time a deploy claimed it; the collector leaves recently claimed blobs alone. */
  @Column({ type: 'timestamptz', name: 'last_claimed_at', precision: 3 })
  lastClaimedAt: Date;

  /** Bytes of the stored Brotli copy (`<key>.br`); null when there is none (not computed yet, or not worth it). */
  @Column('bigint', {
    name: 'br_size',
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  brSize: number | null;

  /** Bytes of the stored gzip copy (`<key>.gz`); null when there is none. */
  @Column('bigint', {
    name: 'gzip_size',
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  gzipSize: number | null;

  /** When the compressed copies were computed (null: not yet); sizes are final from then on. */
  @Column({ type: 'timestamptz', name: 'variants_at', precision: 3, nullable: true })
  variantsAt: Date | null;
}
