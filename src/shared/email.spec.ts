import { plainToInstance } from 'class-transformer';

import { normalizeEmail, ToEmail } from './email';

describe('normalizeEmail', () => {
  it('lowercases the whole address', () => {
    expect(normalizeEmail('Ann.Lee@Example.COM')).toBe('ann.lee@example.com');
  });

  it('gives composed and decomposed accents one form', () => {
    expect(normalizeEmail('Jos\u0065\u0301@example.com')).toBe(normalizeEmail('JOS\u00c9@example.com'));
  });
});

describe('ToEmail', () => {
  class Body {
    @ToEmail()
    email: unknown;
  }

  it('normalises a DTO string field as the body is read', () => {
    expect(plainToInstance(Body, { email: 'Ann@Example.COM' }).email).toBe('ann@example.com');
  });

  it('leaves a non-string for the validators to refuse', () => {
    expect(plainToInstance(Body, { email: 42 }).email).toBe(42);
  });
});
