import { type LeadsKeyring } from '../leads/keyring';
import { openEmail, sealEmail } from '../leads/lead-crypto';

/**
 * A secret of a project's builds (the repository's access token, an environment
 * variable's value) sealed like the leads' emails: AES-256-GCM under the leads
 * keyring's current key, its id kept beside it so older keys still open it after a
 * rotation, and the row it belongs to bound in as additional data, so a ciphertext
 * copied to another project or variable does not open.
 */
export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  /** Ciphertext followed by the GCM tag. */
  ciphertext: Buffer;
}

/** What binds a project's access token to its row. */
export function accessTokenAad(projectId: string): Buffer {
  return Buffer.from(`statichost-git-token:v1:${projectId}`, 'utf8');
}

/**
 * What binds a project's webhook secret to its row. Its own purpose string, so the
 * access token's ciphertext, copied into the webhook columns, does not open as a secret.
 */
export function webhookSecretAad(projectId: string): Buffer {
  return Buffer.from(`statichost-git-webhook-secret:v1:${projectId}`, 'utf8');
}

/** What binds an environment variable's value to its row. */
export function envValueAad(projectId: string, name: string): Buffer {
  return Buffer.from(`statichost-env:v1:${projectId}:${name}`, 'utf8');
}

export function sealSecret(keyring: LeadsKeyring, plaintext: string, aad: Buffer): SealedSecret {
  const { id, key } = keyring.current;
  return { keyId: id, ...sealEmail(key, plaintext, aad) };
}

/** The plaintext; throws (naming the key id, never the secret) when its key is gone or it does not authenticate. */
export function openSecret(keyring: LeadsKeyring, sealed: SealedSecret, aad: Buffer, what: string): string {
  const key = keyring.key(sealed.keyId);
  if (!key) throw new Error(`${what} is sealed under key ${sealed.keyId}, which is not in LEADS_ENCRYPTION_KEYS any more; save it again`);
  const plain = openEmail(key, sealed, aad);
  if (plain === null) throw new Error(`${what} does not open under key ${sealed.keyId} (changed or moved in the database); save it again`);
  return plain;
}
