import fc from 'fast-check';

import { generateTokenSecret, hashTokenSecret, isWellFormedTokenSecret, looksLikeTokenSecret, TOKEN_SECRET_LENGTH, tokenPrefix } from './token-secret';

describe('API token secrets', () => {
  it('look like sk_live_ + base62 and pass their own checksum', () => {
    for (let i = 0; i < 200; i++) {
      const secret = generateTokenSecret();
      expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
      expect(secret).toHaveLength(TOKEN_SECRET_LENGTH);
      expect(isWellFormedTokenSecret(secret)).toBe(true);
      expect(looksLikeTokenSecret(secret)).toBe(true);
    }
  });

  it('are never repeated', () => {
    const seen = new Set(Array.from({ length: 1000 }, generateTokenSecret));
    expect(seen.size).toBe(1000);
  });

  it('fail the checksum when any one character changes', () => {
    const secret = generateTokenSecret();
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: secret.length - 1 }),
        fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'),
        (index, char) => {
          fc.pre(secret[index] !== char);
          const changed = secret.slice(0, index) + char + secret.slice(index + 1);
          expect(isWellFormedTokenSecret(changed)).toBe(false);
        },
      ),
    );
  });

  it('refuse the wrong shape', () => {
    const secret = generateTokenSecret();
    expect(isWellFormedTokenSecret(secret.slice(0, -1))).toBe(false);
    expect(isWellFormedTokenSecret(`${secret}0`)).toBe(false);
    expect(isWellFormedTokenSecret(secret.replace('sk_live_', 'sk_test_'))).toBe(false);
    expect(isWellFormedTokenSecret(`sk_live_${'-'.repeat(38)}`)).toBe(false);
    expect(looksLikeTokenSecret('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
  });

  it('are stored as a SHA-256 hex digest and shown by a 12-character prefix', () => {
    const secret = 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789AB';
    // SHA-256 of the whole secret, prefix included (echo -n <secret> | sha256sum).
    expect(hashTokenSecret(secret)).toBe('cb59619deeab906287abda37c3bf0613d41d6fd82158fe35c834cb49077018aa');
    expect(hashTokenSecret(secret)).not.toBe(hashTokenSecret(`${secret}x`));
    expect(tokenPrefix(secret)).toBe('sk_live_abcd');
  });
});
