import { parseCgroupLimit, siteCacheBudgetBytes } from './site-cache-budget';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe('siteCacheBudgetBytes', () => {
  it('takes SITE_CACHE_MB when set, fractions included', () => {
    expect(siteCacheBudgetBytes(256, { total: 16 * GB, cgroupLimit: null })).toBe(256 * MB);
    expect(siteCacheBudgetBytes(0.5, { total: 16 * GB, cgroupLimit: null })).toBe(512 * 1024);
  });

  it('defaults to an eighth of the machine memory', () => {
    expect(siteCacheBudgetBytes(undefined, { total: 4 * GB, cgroupLimit: null })).toBe(512 * MB);
  });

  it('follows a container limit below the machine memory', () => {
    expect(siteCacheBudgetBytes(undefined, { total: 64 * GB, cgroupLimit: 1 * GB })).toBe(128 * MB);
    expect(siteCacheBudgetBytes(undefined, { total: 4 * GB, cgroupLimit: 64 * GB })).toBe(512 * MB);
  });

  it('stays between 32 MB and 2 GB', () => {
    expect(siteCacheBudgetBytes(undefined, { total: 128 * MB, cgroupLimit: null })).toBe(32 * MB);
    expect(siteCacheBudgetBytes(undefined, { total: 256 * GB, cgroupLimit: null })).toBe(2048 * MB);
  });
});

describe('parseCgroupLimit', () => {
  it('reads a byte count and treats max, v1 unlimited and garbage as no limit', () => {
    expect(parseCgroupLimit('1073741824\n')).toBe(GB);
    expect(parseCgroupLimit('max\n')).toBeNull();
    expect(parseCgroupLimit('9223372036854771712')).toBeNull();
    expect(parseCgroupLimit(undefined)).toBeNull();
    expect(parseCgroupLimit('-1')).toBeNull();
  });
});
