import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CreatedAtColumn, TimestampColumn, UpdatedAtColumn } from '../database/columns';
import type { Email } from '../shared/email';

@Entity('users')
// Emails are stored lowercased, so the unique index makes them unique case-insensitively.
@Check('CHK_users_email_lowercase', `"email" = lower("email")`)
export class User {
  @PrimaryColumn('text')
  id: string;

  @Index('UQ_users_email', { unique: true })
  @Column('text')
  email: Email;

  @Column('text')
  name: string;

  /** `scrypt$N$r$p$salt$hash` (src/common/password-hash.ts); never leaves the service. */
  @Column('text', { name: 'password_hash' })
  passwordHash: string;

  /** When the person proved they read mail at `email`; null until then (and again after a change of address). */
  @TimestampColumn('email_verified_at', { nullable: true })
  emailVerifiedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
