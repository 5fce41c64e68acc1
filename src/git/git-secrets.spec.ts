import { randomBytes } from 'node:crypto';

import { LeadsKeyring } from '../leads/keyring';
import { accessTokenAad, envValueAad, openSecret, sealSecret } from './git-secrets';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('git secrets', () => {
  const old = key('k-old');
  const current = key('k-new');
  const index = key('i1');

  it('seal under the current key, and open under any key of the keyring', () => {
    const before = new LeadsKeyring([old], index);
    const sealed = sealSecret(before, 'ghp_secret', accessTokenAad('proj_a'));
    expect(sealed.keyId).toBe('k-old');
    expect(sealed.ciphertext.includes(Buffer.from('ghp_secret'))).toBe(false);
    const rotated = new LeadsKeyring([current, old], index);
    expect(openSecret(rotated, sealed, accessTokenAad('proj_a'), 'token')).toBe('ghp_secret');
    expect(sealSecret(rotated, 'x', accessTokenAad('proj_a')).keyId).toBe('k-new');
  });

  it('do not open bound to another row', () => {
    const ring = new LeadsKeyring([current], index);
    const sealed = sealSecret(ring, 'hunter2', envValueAad('proj_a', 'API_KEY'));
    expect(() => openSecret(ring, sealed, envValueAad('proj_b', 'API_KEY'), 'API_KEY of proj_b')).toThrow('does not open under key k-new');
    expect(() => openSecret(ring, sealed, envValueAad('proj_a', 'OTHER'), 'OTHER')).toThrow('does not open');
    expect(() => openSecret(ring, sealed, accessTokenAad('proj_a'), 'token')).toThrow('does not open');
  });

  it('name the missing key, never the secret', () => {
    const sealed = sealSecret(new LeadsKeyring([old], index), 'hunter2', accessTokenAad('proj_a'));
    let message = '';
    try {
      openSecret(new LeadsKeyring([current], index), sealed, accessTokenAad('proj_a'), 'The access token of proj_a');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('key k-old');
    expect(message).not.toContain('hunter2');
  });
});
