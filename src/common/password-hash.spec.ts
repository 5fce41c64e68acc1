import { configurePasswordHashCost, DEFAULT_PASSWORD_HASH_COST, hashPassword, verifyPassword } from './password-hash';

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });

  it('treats composed and decomposed accents alike', async () => {
    const stored = await hashPassword('caf\u00e9-secret');
    expect(await verifyPassword('cafe\u0301-secret', stored)).toBe(true);
  });

  it('refuses malformed stored values', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$1$2$3$a$b')).toBe(false);
    // Parameters this service never writes: 2^20 would ask for a gigabyte, NaN would throw.
    // (A 32-byte hash part, so that these reach the parameters.)
    const key = 'A'.repeat(43);
    for (const n of ['1048576', 'many', '1000']) expect(await verifyPassword('x', `scrypt$${n}$8$1$c2FsdHNhbHRzYWx0c2FsdA$${key}`)).toBe(false);
    expect(await verifyPassword('x', `scrypt$1024$64$1$c2FsdHNhbHRzYWx0c2FsdA$${key}`)).toBe(false);
    // A hash part that decodes to nothing (or to a key of another length) matches no password.
    expect(await verifyPassword('x', 'scrypt$1024$8$1$c2FsdHNhbHRzYWx0c2FsdA$!!!!')).toBe(false);
  });

  describe('PASSWORD_HASH_COST', () => {
    afterEach(() => configurePasswordHashCost(DEFAULT_PASSWORD_HASH_COST));

    it('sets N for new hashes, while hashes stored at another cost keep verifying with theirs', async () => {
      const atDefault = await hashPassword('kept at its cost');
      configurePasswordHashCost(10);
      const cheap = await hashPassword('a cheaper one');
      expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(await verifyPassword('a cheaper one', cheap)).toBe(true);
      expect(await verifyPassword('kept at its cost', atDefault)).toBe(true);
      configurePasswordHashCost(17);
      expect(await verifyPassword('a cheaper one', cheap)).toBe(true);
    });

    it('hashes at the top of its range within the memory it allows', async () => {
      configurePasswordHashCost(17);
      const stored = await hashPassword('OWASP figure');
      expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
      expect(await verifyPassword('OWASP figure', stored)).toBe(true);
    });
  });
});
