import { cacheEnv, cacheKey, nodeMajorOf } from './dependency-cache';

describe('cacheKey', () => {
  const lock = Buffer.from('{"lockfileVersion":3}');

  it('is build-cache/<projectId>/<sha256>.tar.gz, a storage key', () => {
    expect(cacheKey('proj_abc', lock, 'npm', '22')).toMatch(/^build-cache\/proj_abc\/[0-9a-f]{64}\.tar\.gz$/);
  });

  it('is the same for the same lock file, manager and Node major; another of any of them is another key', () => {
    const key = cacheKey('proj_abc', lock, 'npm', '22');
    expect(cacheKey('proj_abc', Buffer.from(lock), 'npm', '22')).toBe(key);
    expect(cacheKey('proj_abc', Buffer.from('{"lockfileVersion":2}'), 'npm', '22')).not.toBe(key);
    expect(cacheKey('proj_abc', lock, 'pnpm', '22')).not.toBe(key);
    expect(cacheKey('proj_abc', lock, 'npm', '20')).not.toBe(key);
    expect(cacheKey('proj_other', lock, 'npm', '22')).not.toBe(key);
  });
});

describe('nodeMajorOf', () => {
  it('reads the major of a version or range', () => {
    expect(nodeMajorOf('v22.3.0')).toBe('22');
    expect(nodeMajorOf('20.x')).toBe('20');
    expect(nodeMajorOf('>=18')).toBe('18');
    expect(nodeMajorOf('lts')).toBe('lts');
  });
});

describe('cacheEnv', () => {
  it('points the build’s own package manager at the cache folder, and npm only at npm’s', () => {
    expect(cacheEnv('/c', 'npm')).toEqual({ npm_config_cache: '/c/npm' });
    expect(cacheEnv('/c', null)).toEqual({ npm_config_cache: '/c/npm' });
    expect(cacheEnv('/c', 'pnpm')).toMatchObject({ npm_config_store_dir: '/c/pnpm-store', pnpm_config_store_dir: '/c/pnpm-store' });
    expect(cacheEnv('/c', 'yarn')).toMatchObject({ YARN_CACHE_FOLDER: '/c/yarn', YARN_GLOBAL_FOLDER: '/c/yarn-global' });
  });
});
