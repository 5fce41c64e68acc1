import type { SecretSealer } from '../auth/two-factor/secret-sealer';
import type { RowCipher } from '../database/reseal-rows';
import type { LeadsKeyring } from './keyring';
import { openEmail, sealEmail } from './lead-crypto';

/** The leads keyring as auth's SECRET_SEALER (TOTP secrets): AES-256-GCM, like webhook and Git secrets. */
export function keyringSealer(keyring: LeadsKeyring): SecretSealer {
  return {
    seal(plaintext, aad) {
      const { id, key } = keyring.current;
      return { keyId: id, ...sealEmail(key, plaintext, aad) };
    },
    open(sealed, aad, what) {
      const key = keyring.key(sealed.keyId);
      if (!key) throw new Error(`${what} is sealed under key ${sealed.keyId}, which is not in LEADS_ENCRYPTION_KEYS any more`);
      const plain = openEmail(key, sealed, aad);
      if (plain === null) throw new Error(`${what} does not open under key ${sealed.keyId} (changed or moved in the database)`);
      return plain;
    },
  };
}

/** The leads keyring as the cipher of `npm run leads:rotate`'s re-sealing of other areas' secrets (src/database/reseal-rows.ts). */
export function keyringRowCipher(keyring: LeadsKeyring): RowCipher {
  return {
    currentKeyId: keyring.current.id,
    open(sealed, aad) {
      const key = keyring.key(sealed.keyId);
      return key ? openEmail(key, sealed, aad) : null;
    },
    seal(plaintext, aad) {
      const { id, key } = keyring.current;
      return { keyId: id, ...sealEmail(key, plaintext, aad) };
    },
  };
}
