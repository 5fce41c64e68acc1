import { createHash } from 'node:crypto';

import { randomString } from '../../common/ids';
import type { AccountTokenPurpose } from './account-token.entity';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM = 43; // about 256 bits

/** Each purpose has its own prefix, so a token pasted into the wrong form is told apart from a made-up one. */
export const TOKEN_PREFIX: Record<AccountTokenPurpose, string> = { verify_email: 'ev_', password_reset: 'pr_' };

/** How long a mailed token works. */
export const TOKEN_TTL_MS: Record<AccountTokenPurpose, number> = { verify_email: 24 * 3_600_000, password_reset: 3_600_000 };

const SHAPE = /^(ev|pr)_[0-9A-Za-z]{43}$/;

export function newAccountToken(purpose: AccountTokenPurpose): string {
  return `${TOKEN_PREFIX[purpose]}${randomString(RANDOM, BASE62)}`;
}

export const hashAccountToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** What the text alone says about a token: not one of ours, meant for another form, or worth looking up. */
export function tokenShape(token: string, purpose: AccountTokenPurpose): 'malformed' | 'foreign' | 'ok' {
  if (!SHAPE.test(token)) return 'malformed';
  return token.startsWith(TOKEN_PREFIX[purpose]) ? 'ok' : 'foreign';
}
