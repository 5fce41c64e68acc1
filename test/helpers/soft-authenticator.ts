import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

import { isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer) => data.toString('base64url');

/** Authenticator-data flags (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/**
 * A software WebAuthn authenticator for tests that need no browser: it answers the
 * service's options as a real one would (attestation `none`, an ES256 key, a signature
 * counter), and lets a test bend what a browser never would (another origin, a replayed
 * answer). The passkey suite's browser test uses Chromium's virtual authenticator instead.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly cosePublicKey: Buffer;
  /** The signature counter; a test sets it back to act as a cloned authenticator. */
  counter = 0;
  /** The user handle the registration options gave, handed back at sign-in as a discoverable passkey does. */
  private userHandle: string | undefined;

  constructor(
    readonly origin: string,
    readonly rpId = new URL(origin).hostname,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.cosePublicKey = Buffer.from(
      isoCBOR.encode(
        new Map<number, number | Uint8Array>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      ),
    );
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The answer `startRegistration` would give to `options` (POST /auth/passkeys/registration-options). */
  register(options: { challenge: string; user: { id: string } }, bend: { origin?: string; rpId?: string } = {}) {
    this.userHandle = options.user.id;
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: bend.origin ?? this.origin, crossOrigin: false }),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([this.authData(UP | UV | AT, bend.rpId), Buffer.alloc(16), idLength, this.credentialId, this.cosePublicKey]);
    const attestationObject = Buffer.from(
      isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]) as never,
      ),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: { clientDataJSON: b64url(clientData), attestationObject: b64url(attestationObject), transports: ['internal'] },
    };
  }

  /** The answer `startAuthentication` would give to `options` (POST /auth/passkeys/authentication-options). */
  authenticate(options: { challenge: string }, bend: { origin?: string; userVerified?: boolean } = {}) {
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: bend.origin ?? this.origin, crossOrigin: false }),
    );
    this.counter++;
    const authData = this.authData(UP | (bend.userVerified === false ? 0 : UV));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }

  private authData(flags: number, rpId = this.rpId): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter]);
  }
}
