import { Column, Entity, PrimaryColumn } from 'typeorm';

import { TimestampColumn } from '../database/columns';
import type { DeclaredForm } from '../shared/forms/declared-form';

/**
 * What one HTML blob declares, found once per content (issue 30): a redeploy of a large
 * site reparses only the HTML files that changed. Keyed by the blob's SHA-256, so it is
 * shared by every deployment and workspace holding the same bytes (it reveals no more
 * than the blob table does). `page` in each form is left empty here: the path is the
 * deployment's, not the content's.
 */
@Entity('html_form_scans')
export class HtmlFormScan {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_html_form_scans' })
  sha256: string;

  @Column('jsonb')
  forms: Omit<DeclaredForm, 'page'>[];

  @TimestampColumn('scanned_at')
  scannedAt: Date;
}
