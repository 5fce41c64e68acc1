import { checkLeadEmail } from './email-address';

describe('checkLeadEmail', () => {
  it.each([
    ['ada@example.com', 'ada@example.com'],
    ['  Ada.Lovelace@Example.COM \n', 'ada.lovelace@example.com'],
    ["o'brien_100%+tag@sub.example.co.uk", "o'brien_100%+tag@sub.example.co.uk"],
    ['josé@exämple.de', 'josé@exämple.de'],
  ])('accepts %j as %j', (raw, email) => {
    expect(checkLeadEmail(raw)).toEqual({ ok: true, email });
  });

  it.each([
    [null, /Enter your email/],
    ['   ', /Enter your email/],
    ['plainaddress', /does not look like/],
    ['a@b', /does not look like/],
    ['someone@localhost', /does not look like/],
    ['a@[127.0.0.1]', /does not look like/],
    ['Ada <ada@example.com>', /does not look like/],
    ['a b@example.com', /does not look like/],
    ['ada@example.com\u0000', /does not look like/],
    [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, /too long/],
  ])('refuses %j', (raw, error) => {
    const result = checkLeadEmail(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(error);
  });

  it('allows exactly 254 characters when the shape is right', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(email).toHaveLength(254);
    expect(checkLeadEmail(email).ok).toBe(true);
  });
});
