import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { useTempDir } from '../../test/helpers/temp-dir';
import { validateEnv } from '../config/env.schema';
import { LeadsKeyring, newKeyEntry, parseKeyList } from './keyring';

const b64 = () => randomBytes(32).toString('base64');

describe('parseKeyList', () => {
  it('reads key ids and 32-byte keys in order, base64 or base64url', () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const keys = parseKeyList(`new:${k2.toString('base64url')},old:${k1.toString('base64')}`, 'X');
    expect(keys.map((k) => k.id)).toEqual(['new', 'old']);
    expect(keys[0].key.equals(k2)).toBe(true);
    expect(keys[1].key.equals(k1)).toBe(true);
  });

  it.each([
    ['', /entry 1/],
    ['nokey', /entry 1 must be <keyId>:<base64 key>/],
    [`bad id:${b64()}`, /entry 1/],
    ['k1:!!!!', /key k1 is not base64/],
    [`k1:${randomBytes(16).toString('base64')}`, /key k1 must be 32 bytes/],
    [`k1:${b64()},k1:${b64()}`, /key id k1 appears twice/],
  ])('refuses %j naming the source, never echoing a key', (value, message) => {
    expect(() => parseKeyList(value, 'LEADS_ENCRYPTION_KEYS')).toThrow(message);
    try {
      parseKeyList(value, 'LEADS_ENCRYPTION_KEYS');
    } catch (err) {
      expect((err as Error).message).toMatch(/^LEADS_ENCRYPTION_KEYS: /);
      const secret = value.split(',')[0].split(':')[1];
      if (secret && secret.length > 8) expect((err as Error).message).not.toContain(secret);
    }
  });

  it('accepts what newKeyEntry makes', () => {
    expect(parseKeyList(newKeyEntry('k'), 'X')).toHaveLength(1);
  });
});

describe('LeadsKeyring.load', () => {
  const dir = useTempDir('leads-keyring-');

  it('generates both keys once into DATA_DIR (mode 0600) and reuses them', async () => {
    const first = await LeadsKeyring.load({ DATA_DIR: dir() });
    const again = await LeadsKeyring.load({ DATA_DIR: dir() });
    expect(again.current.id).toBe(first.current.id);
    expect(again.current.key.equals(first.current.key)).toBe(true);
    expect(again.indexKeyId).toBe(first.indexKeyId);
    for (const file of ['leads-encryption.keys', 'leads-index.key']) {
      expect((await stat(join(dir(), file))).mode & 0o777).toBe(0o600);
    }
    expect(await readFile(join(dir(), 'leads-encryption.keys'), 'utf8')).toMatch(/^k[0-9a-z]{8}:/);
  });

  it('prefers the environment: the first encryption key seals, every key opens', async () => {
    const ring = await LeadsKeyring.load({ DATA_DIR: dir(), LEADS_ENCRYPTION_KEYS: `k2:${b64()},k1:${b64()}`, LEADS_INDEX_KEY: `idx:${b64()}` });
    expect(ring.current.id).toBe('k2');
    expect(ring.key('k1')).toBeDefined();
    expect(ring.key('k3')).toBeUndefined();
    expect(ring.indexKeyId).toBe('idx');
  });

  it('refuses several index keys', async () => {
    await expect(LeadsKeyring.load({ DATA_DIR: dir(), LEADS_INDEX_KEY: `a:${b64()},b:${b64()}` })).rejects.toThrow(/exactly one index key/);
  });
});

describe('leads settings in the environment schema', () => {
  it('accepts key lists and the capture limits', () => {
    const env = validateEnv({
      LEADS_ENCRYPTION_KEYS: `k2:${b64()},k1:${randomBytes(32).toString('base64url')}`,
      LEADS_INDEX_KEY: `i1:${b64()}`,
      LEADS_CAPTURE_MAX_PER_WINDOW: '3',
    });
    expect(env.LEADS_CAPTURE_MAX_PER_WINDOW).toBe(3);
    expect(env.LEADS_CAPTURE_WINDOW_SECONDS).toBe(600);
    expect(validateEnv({}).LEADS_ENCRYPTION_KEYS).toBeUndefined();
  });

  it.each([
    ['LEADS_ENCRYPTION_KEYS', 'k1:tooshort'],
    ['LEADS_ENCRYPTION_KEYS', `k1:${b64()};k2:${b64()}`],
    ['LEADS_INDEX_KEY', `a:${b64()},b:${b64()}`],
    ['LEADS_CAPTURE_MAX_PER_WINDOW', '0'],
    ['LEADS_CAPTURE_WINDOW_SECONDS', 'soon'],
  ])('refuses %s=%s at start-up, naming it', (name, value) => {
    expect(() => validateEnv({ [name]: value })).toThrow(new RegExp(`^Invalid configuration:\\n  ${name}=`));
  });
});
