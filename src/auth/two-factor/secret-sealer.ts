/**
 * How two-factor sign-in keeps a TOTP secret at rest without knowing the keys: an AEAD
 * under a keyring's current key, its key id kept beside it so older keys still open it
 * after a rotation. LeadsModule binds it to the leads keyring (the webhook and Git secrets'
 * keyring), which sits above auth in the layers, so auth owns the port.
 */
export const SECRET_SEALER = Symbol('SECRET_SEALER');

export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  /** Ciphertext followed by the tag. */
  ciphertext: Buffer;
}

export interface SecretSealer {
  seal(plaintext: string, aad: Buffer): SealedSecret;
  /** The plaintext; throws (naming `what` and the key id, never the secret) when it does not open. */
  open(sealed: SealedSecret, aad: Buffer, what: string): string;
}
