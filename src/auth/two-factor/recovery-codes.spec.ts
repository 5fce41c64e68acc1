import { looksLikeTotpCode, newRecoveryCodes, RECOVERY_CODE_COUNT, recoveryCodeHash } from './recovery-codes';

describe('recovery codes', () => {
  it('are ten distinct xxxxx-xxxxx codes without look-alike characters', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
  });

  it('hash the same whatever the case, spaces and dashes, and differently per user', () => {
    const hash = recoveryCodeHash('usr_a', 'abcde-fghjk');
    expect(recoveryCodeHash('usr_a', ' ABCDE fghjk ')).toBe(hash);
    expect(recoveryCodeHash('usr_a', 'abcdefghjk')).toBe(hash);
    expect(recoveryCodeHash('usr_b', 'abcde-fghjk')).not.toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('tell a TOTP code from a recovery code', () => {
    expect(looksLikeTotpCode('123456')).toBe(true);
    expect(looksLikeTotpCode('123 456')).toBe(true);
    expect(looksLikeTotpCode('12345')).toBe(false);
    expect(looksLikeTotpCode('abcde-fghjk')).toBe(false);
  });
});
