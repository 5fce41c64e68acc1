import { Column, Entity, PrimaryColumn } from 'typeorm';

import { BIGINT_NUMBER, CascadeManyToOne, CreatedAtColumn, ReferenceColumn, TimestampColumn } from '../../database/columns';
import { User } from '../../users/user.entity';

/**
 * A user's TOTP authenticator (issue 32). The shared secret is sealed like webhook
 * secrets (AES-256-GCM under the leads keyring, bound to the user id); `enabledAt` is
 * null while the enrolment waits for its first code. `lastUsedStep` is the 30 s time
 * step of the last code accepted: a code of that step or an earlier one is refused, so
 * a code seen over someone's shoulder cannot be used again.
 */
@Entity('totp_credentials')
export class TotpCredential {
  @PrimaryColumn('text', { name: 'user_id', primaryKeyConstraintName: 'PK_totp_credentials' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_totp_credentials_user')
  user?: User;

  @Column('text', { name: 'secret_key_id' })
  secretKeyId: string;

  @Column('bytea', { name: 'secret_nonce' })
  secretNonce: Buffer;

  @Column('bytea', { name: 'secret_ciphertext' })
  secretCiphertext: Buffer;

  @TimestampColumn('enabled_at', { nullable: true })
  enabledAt: Date | null;

  @Column('bigint', { name: 'last_used_step', nullable: true, transformer: BIGINT_NUMBER })
  lastUsedStep: number | null;

  @CreatedAtColumn()
  createdAt: Date;
}

/** One of a user's ten single-use recovery codes: only its SHA-256 (salted with the user id) is kept. */
@Entity('recovery_codes')
export class RecoveryCode {
  @PrimaryColumn('text', { name: 'code_hash', primaryKeyConstraintName: 'PK_recovery_codes' })
  codeHash: string;

  @ReferenceColumn('user_id', { index: 'IDX_recovery_codes_user' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_recovery_codes_user')
  user?: User;

  @CreatedAtColumn()
  createdAt: Date;
}

/**
 * The second step of a sign-in whose password was right (POST /auth/login answered
 * second_factor_required): the opaque challenge handed out is kept as its SHA-256,
 * lives 5 minutes and is deleted by the answer that completes the sign-in.
 */
@Entity('login_challenges')
export class LoginChallenge {
  @PrimaryColumn('text', { name: 'token_hash', primaryKeyConstraintName: 'PK_login_challenges' })
  tokenHash: string;

  @ReferenceColumn('user_id', { index: 'IDX_login_challenges_user' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_login_challenges_user')
  user?: User;

  @TimestampColumn('expires_at')
  expiresAt: Date;

  @CreatedAtColumn()
  createdAt: Date;
}
