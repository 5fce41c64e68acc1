import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

import type { Email } from './email';

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
  @Column({ type: 'timestamptz', name: 'email_verified_at', precision: 3, nullable: true })
  emailVerifiedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
