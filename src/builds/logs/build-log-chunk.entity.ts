import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

import { CascadeManyToOne } from '../../database/columns';
import { Build } from '../build.entity';

/**
 * Log lines of a running build, appended in small batches so any API instance (not only
 * the builder's) can answer and follow the log. Moved to the storage provider in one
 * object when the build ends.
 */
@Entity('build_log_chunks')
@Index('IDX_build_log_chunks_build', ['buildId', 'id'])
export class BuildLogChunk {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'PK_build_log_chunks' })
  id: string;

  @Column('text', { name: 'build_id' })
  buildId: string;

  @CascadeManyToOne(() => Build, 'build_id', 'FK_build_log_chunks_build')
  build?: Build;

  /** Whole lines, each ending in a newline. */
  @Column('text')
  text: string;
}
