import type { SealedColumns } from '../../database/reseal-rows';

/** What binds a TOTP secret to its user: a secret moved to another account does not open. */
export function totpAad(userId: string): Buffer {
  return Buffer.from(`statichost-totp:v1:${userId}`, 'utf8');
}

/** The sealed TOTP secrets, for `npm run leads:rotate`. */
export const TOTP_SEALED_COLUMNS: SealedColumns = {
  what: 'TOTP secret',
  table: 'totp_credentials',
  id: 'user_id',
  keyId: 'secret_key_id',
  nonce: 'secret_nonce',
  ciphertext: 'secret_ciphertext',
  aad: totpAad,
};
