import { AppConfig } from './app-config';
import { validateEnv } from './env.schema';

describe('validateEnv', () => {
  it('fills every default from an empty environment', () => {
    const env = validateEnv({});
    expect(env).toMatchObject({ PORT: 3000, DATA_DIR: './data', STORAGE_DRIVER: 'local', SITES_DOMAIN: 'localhost', LOG_LEVEL: 'info' });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('converts numbers and booleans', () => {
    const env = validateEnv({ PORT: '8080', S3_FORCE_PATH_STYLE: 'true', DATABASE_URL: 'postgres://u@h/db' });
    expect(env.PORT).toBe(8080);
    expect(env.S3_FORCE_PATH_STYLE).toBe(true);
  });

  it('has body and connection limits by default, and refuses a headers timeout longer than the request timeout', () => {
    expect(validateEnv({})).toMatchObject({
      ANONYMOUS_BODY_LIMIT_BYTES: 16384,
      HTTP_HEADERS_TIMEOUT_MS: 20_000,
      HTTP_REQUEST_TIMEOUT_MS: 120_000,
      HTTP_IDLE_TIMEOUT_MS: 30_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000,
    });
    expect(() => validateEnv({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must not exceed/);
  });

  it('names the bad variable and its value', () => {
    expect(() => validateEnv({ PORT: 'eighty' })).toThrow(/PORT="eighty"/);
    expect(() => validateEnv({ STORAGE_DRIVER: 'ftp' })).toThrow(/STORAGE_DRIVER="ftp"/);
    expect(() => validateEnv({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be a postgres/);
  });

  it('takes TRUST_PROXY as a boolean, a hop count or a list of proxies, and says what is wrong with anything else', () => {
    for (const ok of ['true', 'false', '2', 'loopback, 10.0.0.0/8', ''])
      expect(AppConfig.from(validateEnv({ TRUST_PROXY: ok })).trustProxy).toBeInstanceOf(Function);
    expect(() => validateEnv({ TRUST_PROXY: 'cloudflare' })).toThrow(/TRUST_PROXY="cloudflare": TRUST_PROXY must be true, false, a hop count or a comma list/);
    expect(() => validateEnv({ TRUST_PROXY: '99' })).toThrow(/TRUST_PROXY must be at most 10 hops/);
  });

  it('takes PASSWORD_HASH_COST from 10 to 17, 15 by default', () => {
    expect(validateEnv({}).PASSWORD_HASH_COST).toBe(15);
    expect(validateEnv({ PASSWORD_HASH_COST: '17' }).PASSWORD_HASH_COST).toBe(17);
    // Its value is not echoed: the name says PASSWORD, as a secret's may.
    expect(() => validateEnv({ PASSWORD_HASH_COST: '9' })).toThrow(/PASSWORD_HASH_COST must not be less than 10/);
    expect(() => validateEnv({ PASSWORD_HASH_COST: '18' })).toThrow(/PASSWORD_HASH_COST must not be greater than 17/);
  });

  it('never echoes the value of a secret it refuses', () => {
    expect(() => validateEnv({ GATE_COOKIE_SECRET: 'too-short-hunter2' })).toThrow(/GATE_COOKIE_SECRET="\[redacted\]"/);
    try {
      validateEnv({ GATE_COOKIE_SECRET: 'too-short-hunter2', DATABASE_URL: 'mysql://u:pw-hunter3@h/db' });
    } catch (err) {
      expect((err as Error).message).not.toMatch(/hunter2|hunter3/);
    }
  });

  it('takes SITE_CACHE_MB in MB, fractions allowed, and refuses zero or words', () => {
    expect(AppConfig.from(validateEnv({ SITE_CACHE_MB: '0.5' })).siteCacheBytes).toBe(512 * 1024);
    expect(AppConfig.from(validateEnv({ SITE_CACHE_MB: '' })).SITE_CACHE_MB).toBeUndefined();
    expect(AppConfig.from(validateEnv({})).siteCacheBytes).toBeGreaterThanOrEqual(32 * 1024 * 1024);
    expect(() => validateEnv({ SITE_CACHE_MB: '0' })).toThrow(/SITE_CACHE_MB="0"/);
    expect(() => validateEnv({ SITE_CACHE_MB: 'lots' })).toThrow(/SITE_CACHE_MB="lots"/);
  });

  it('takes SITE_CACHE_TAG_HEADERS as none or the two CDN tag headers, and refuses any other name', () => {
    expect(validateEnv({ SITE_CACHE_TAG_HEADERS: 'Cache-Tag,Surrogate-Key' }).SITE_CACHE_TAG_HEADERS).toBe('Cache-Tag,Surrogate-Key');
    expect(validateEnv({ SITE_CACHE_TAG_HEADERS: 'none' }).SITE_CACHE_TAG_HEADERS).toBe('none');
    expect(() => validateEnv({ SITE_CACHE_TAG_HEADERS: 'Cache-Tag,X-Tags' })).toThrow(
      /SITE_CACHE_TAG_HEADERS="Cache-Tag,X-Tags": SITE_CACHE_TAG_HEADERS must be none/,
    );
    expect(() => validateEnv({ SITE_CACHE_TAG_HEADERS: 'Cache-Tag,' })).toThrow(/SITE_CACHE_TAG_HEADERS must be none/);
  });

  it('requires a bucket for the S3 driver', () => {
    expect(() => validateEnv({ STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET/);
  });
});

describe('AppConfig.siteUrl', () => {
  const config = (env: Record<string, string>) => AppConfig.from(validateEnv(env));

  it('uses PORT for localhost sites', () => {
    expect(config({ PORT: '3000' }).siteUrl('blog')).toBe('http://blog.localhost:3000');
  });
  it('omits the default port of the scheme', () => {
    expect(config({ PUBLIC_SCHEME: 'https', SITES_DOMAIN: 'sites.example.com' }).siteUrl('blog')).toBe('https://blog.sites.example.com');
    expect(config({ PUBLIC_SCHEME: 'https', SITES_DOMAIN: 'localhost', PUBLIC_PORT: '443' }).siteUrl('a')).toBe('https://a.localhost');
  });
  it('keeps an explicit public port', () => {
    expect(config({ SITES_DOMAIN: 'example.test', PUBLIC_PORT: '8443' }).siteUrl('a')).toBe('http://a.example.test:8443');
  });
});
