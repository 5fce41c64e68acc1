import { hashAccountToken, newAccountToken, tokenShape } from './account-tokens';

describe('account tokens', () => {
  it('carry their purpose in the prefix and about 256 random bits', () => {
    const token = newAccountToken('password_reset');
    expect(token).toMatch(/^pr_[0-9A-Za-z]{43}$/);
    expect(newAccountToken('verify_email')).toMatch(/^ev_/);
    expect(newAccountToken('verify_email')).not.toBe(newAccountToken('verify_email'));
  });

  it('tell a malformed token from one meant for the other form', () => {
    expect(tokenShape(newAccountToken('verify_email'), 'verify_email')).toBe('ok');
    expect(tokenShape(newAccountToken('verify_email'), 'password_reset')).toBe('foreign');
    expect(tokenShape('ev_short', 'verify_email')).toBe('malformed');
    expect(tokenShape(`ev_${'a'.repeat(42)}!`, 'verify_email')).toBe('malformed');
    expect(tokenShape('', 'verify_email')).toBe('malformed');
  });

  it('are stored as SHA-256 hex only', () => {
    expect(hashAccountToken('ev_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashAccountToken('ev_x')).not.toContain('ev_x');
  });
});
