import { validateEnv } from './env.schema';
import { AppConfig } from './app-config';

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

  it('names the bad variable and its value', () => {
    expect(() => validateEnv({ PORT: 'eighty' })).toThrow(/PORT="eighty"/);
    expect(() => validateEnv({ STORAGE_DRIVER: 'ftp' })).toThrow(/STORAGE_DRIVER="ftp"/);
    expect(() => validateEnv({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must be a postgres/);
  });

  it('never echoes the value of a secret it refuses', () => {
    expect(() => validateEnv({ GATE_COOKIE_SECRET: 'too-short-hunter2' })).toThrow(/GATE_COOKIE_SECRET="\[redacted\]"/);
    try {
      validateEnv({ GATE_COOKIE_SECRET: 'too-short-hunter2', DATABASE_URL: 'mysql://u:pw-hunter3@h/db' });
    } catch (err) {
      expect((err as Error).message).not.toMatch(/hunter2|hunter3/);
    }
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
