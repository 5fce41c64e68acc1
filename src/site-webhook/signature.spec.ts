import { createHmac } from 'node:crypto';

import { signBody, verifySignature } from './signature';

const SECRET = 's'.repeat(32);

describe('webhook signature', () => {
  it('is the hex HMAC-SHA256 of the exact body', () => {
    const body = '{"a":1}';
    expect(signBody(body, SECRET)).toBe(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
  });

  it('verifies only the same body with the same secret', () => {
    const header = signBody('{"a":1}', SECRET);
    expect(verifySignature('{"a":1}', header, SECRET)).toBe(true);
    expect(verifySignature('{"a":2}', header, SECRET)).toBe(false);
    expect(verifySignature('{"a":1}', header, 't'.repeat(32))).toBe(false);
    expect(verifySignature('{"a":1}', undefined, SECRET)).toBe(false);
    expect(verifySignature('{"a":1}', header.slice(0, -1), SECRET)).toBe(false);
  });
});
