import { Column, Entity, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, TimestampColumn } from '../database/columns';
import { Form } from './form.entity';

/** How many rows a form's counters are spread over (see FormCounterShard). */
export const FORM_COUNTER_SLOTS = 16;

/**
 * One of a form's counter rows (issue 30): a form's submission and spam counts and its
 * last submission are the sums and the newest over its rows. One row per form would make
 * every submission to the form wait for the one before it to commit (its row lock is held
 * through the commit's flush to disk), which capped a form at about one submission per
 * flush; spread over `FORM_COUNTER_SLOTS` rows (a connection's slot is its backend pid),
 * concurrent submissions commit together. Erasure and spam changes add their deltas to
 * slot 0, so one slot may go below zero; the sums never do.
 */
@Entity('form_counters')
export class FormCounterShard {
  @PrimaryColumn('text', { name: 'form_id', primaryKeyConstraintName: 'PK_form_counters' })
  formId: string;

  @CascadeManyToOne(() => Form, 'form_id', 'FK_form_counters_form')
  form?: Form;

  @PrimaryColumn('smallint', { primaryKeyConstraintName: 'PK_form_counters' })
  slot: number;

  @Column('integer', { default: 0 })
  submissions: number;

  @Column('integer', { default: 0 })
  spam: number;

  @TimestampColumn('last_submission_at', { nullable: true })
  lastSubmissionAt: Date | null;
}
