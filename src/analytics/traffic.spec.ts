import { dayOf, hourOf, MAX_PATH_LENGTH, normalisePath, referrerHost, statusClass } from './traffic';

describe('normalisePath', () => {
  it.each([
    ['/', '/'],
    ['/docs/?utm_source=x', '/docs/'],
    ['/a#frag', '/a'],
    ['/a?b#c', '/a'],
    ['/caf%C3%A9', '/café'],
    ['/bad%E0%A4%A', '/bad%E0%A4%A'],
    ['//x///y', '/x/y'],
    ['/a%00b', '/a\ufffdb'],
    ['/a%0Ab', '/a\ufffdb'],
  ])('%s → %s', (url, path) => expect(normalisePath(url)).toBe(path));

  it('cuts long paths', () => {
    expect(normalisePath(`/${'x'.repeat(1000)}`)).toHaveLength(MAX_PATH_LENGTH);
  });
});

describe('referrerHost', () => {
  it('keeps other sites, lower case, without www and port', () => {
    expect(referrerHost('https://WWW.Google.com:8443/search?q=secret', 'blog.example.app')).toBe('google.com');
    expect(referrerHost('http://news.ycombinator.com/item?id=1', 'blog.example.app')).toBe('news.ycombinator.com');
  });

  it('drops the site itself, non-http and garbage', () => {
    expect(referrerHost('http://blog.example.app:3000/about', 'blog.example.app:3000')).toBeUndefined();
    expect(referrerHost('android-app://com.x', 'a')).toBeUndefined();
    expect(referrerHost('not a url', 'a')).toBeUndefined();
    expect(referrerHost(undefined, 'a')).toBeUndefined();
  });
});

describe('buckets', () => {
  it('statusClass', () => {
    expect([100, 200, 304, 404, 503, 99, 700].map(statusClass)).toEqual([1, 2, 3, 4, 5, 1, 5]);
  });

  it('hour and day in UTC', () => {
    const t = Date.parse('2026-11-23T13:45:12.345Z');
    expect(new Date(hourOf(t)).toISOString()).toBe('2026-11-23T13:00:00.000Z');
    expect(dayOf(t)).toBe('2026-11-23');
  });
});
