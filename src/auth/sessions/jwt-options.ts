import { createSecretKey, randomBytes } from 'node:crypto';
import { join } from 'node:path';

import type { JwtModuleOptions } from '@nestjs/jwt';

import { loadOrCreateSecret } from '../../common/secret-file';
import type { AppConfig } from '../../config/app-config';

const ISSUER = 'statichost';
/** Only our dashboard access tokens carry this audience; any other JWT signed with the key is refused. */
const AUDIENCE = 'statichost:access';

export function jwtSecretFile(config: AppConfig): string {
  return join(config.DATA_DIR, 'jwt.secret');
}

/** HS256 with JWT_SECRET, or with a key generated once into $DATA_DIR/jwt.secret. */
export async function jwtModuleOptions(config: AppConfig): Promise<JwtModuleOptions> {
  const secret = config.JWT_SECRET ?? (await loadOrCreateSecret(jwtSecretFile(config), () => randomBytes(48).toString('base64url')));
  return {
    // A KeyObject made once: given a string, jsonwebtoken first tries (and fails) to parse it
    // as a public key on every verify, which was the most expensive step of a JWT request.
    secret: createSecretKey(Buffer.from(secret, 'utf8')),
    signOptions: { algorithm: 'HS256', expiresIn: config.JWT_ACCESS_TTL_SECONDS, issuer: ISSUER, audience: AUDIENCE },
    verifyOptions: { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE },
  };
}
