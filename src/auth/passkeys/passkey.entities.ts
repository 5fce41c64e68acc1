import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { BigintColumn, CascadeManyToOne, CreatedAtColumn, ReferenceColumn, TimestampColumn, TokenHashColumn } from '../../database/columns';
import { User } from '../../users/user.entity';

export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

/**
 * A WebAuthn credential a person registered (issue 32): the public key and signature
 * counter the authenticator answers are checked against. `credential_id` is the
 * authenticator's id of the key (base64url), unique across users: a discoverable sign-in
 * finds the passkey, and with it the user, by that id alone.
 */
@Entity('passkeys')
@Check('CHK_passkeys_device_type', `"device_type" IN ('singleDevice', 'multiDevice')`)
export class Passkey {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_passkeys' })
  id: string;

  @ReferenceColumn('user_id', { index: 'IDX_passkeys_user' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_passkeys_user')
  user?: User;

  @Index('UQ_passkeys_credential_id', { unique: true })
  @Column('text', { name: 'credential_id' })
  credentialId: string;

  /** The COSE public key as the authenticator sent it. */
  @Column('bytea', { name: 'public_key' })
  publicKey: Buffer;

  @BigintColumn()
  counter: number;

  @Column('text', { array: true })
  transports: string[];

  @Column('text', { name: 'device_type' })
  deviceType: PasskeyDeviceType;

  @Column('boolean', { name: 'backed_up' })
  backedUp: boolean;

  @Column('text')
  name: string;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn('last_used_at', { nullable: true })
  lastUsedAt: Date | null;
}

export type PasskeyChallengePurpose = 'registration' | 'authentication';

/**
 * A WebAuthn challenge this service issued, kept in PostgreSQL so any instance can check
 * the answer; only its SHA-256 is stored. Single use (deleted when answered) and short-lived.
 * `user_id` is the person registering; none for a sign-in, which names no one in advance.
 */
@Entity('passkey_challenges')
@Check('CHK_passkey_challenges_purpose', `"purpose" IN ('registration', 'authentication')`)
export class PasskeyChallenge {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_passkey_challenges' })
  id: string;

  @TokenHashColumn('UQ_passkey_challenges_token_hash')
  tokenHash: string;

  @Column('text')
  purpose: PasskeyChallengePurpose;

  @ReferenceColumn('user_id', { nullable: true })
  userId: string | null;

  @CascadeManyToOne(() => User, 'user_id', 'FK_passkey_challenges_user', { nullable: true })
  user?: User;

  @Index('IDX_passkey_challenges_expires_at')
  @TimestampColumn('expires_at')
  expiresAt: Date;
}
