import { normalizeEmail } from './email';

describe('normalizeEmail', () => {
  it('lowercases the whole address', () => {
    expect(normalizeEmail('Ann.Lee@Example.COM')).toBe('ann.lee@example.com');
  });

  it('gives composed and decomposed accents one form', () => {
    expect(normalizeEmail('Jos\u0065\u0301@example.com')).toBe(normalizeEmail('JOS\u00c9@example.com'));
  });
});
