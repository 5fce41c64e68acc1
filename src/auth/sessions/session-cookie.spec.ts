import { ApiError } from '../../common/errors';
import { readRefreshCookies, refreshCookie, refreshCookieScheme, retiredCookieDeletion, sessionMode } from './session-cookie';

const https = refreshCookieScheme(true);
const http = refreshCookieScheme(false);

describe('cookie-mode sessions', () => {
  it('reads the mode from X-Session-Mode and refuses anything else by name', () => {
    expect(sessionMode(undefined)).toBe('body');
    expect(sessionMode('cookie')).toBe('cookie');
    expect(sessionMode(' Cookie ')).toBe('cookie');
    expect(() => sessionMode('cookies')).toThrow(ApiError);
    expect(() => sessionMode('')).toThrow(/X-Session-Mode must be "cookie"/);
  });

  it('under https: a __Host- cookie (Secure, Path=/, no Domain) that no other host can set or shadow', () => {
    expect(refreshCookie('rt_abc', { scheme: https, maxAgeSeconds: 3600 })).toBe(
      '__Host-statichost_refresh=rt_abc; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Strict',
    );
    expect(refreshCookie(undefined, { scheme: https, maxAgeSeconds: 3600 })).toBe(
      '__Host-statichost_refresh=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict',
    );
    expect(retiredCookieDeletion(https)).toBe('statichost_refresh=; Max-Age=0; Path=/auth; HttpOnly; Secure; SameSite=Strict');
  });

  it('under http: the name and path of before, without Secure (browsers refuse it from plain-http hosts other than localhost)', () => {
    expect(refreshCookie('rt_abc', { scheme: http, maxAgeSeconds: 3600 })).toBe(
      'statichost_refresh=rt_abc; Max-Age=3600; Path=/auth; HttpOnly; SameSite=Strict',
    );
    expect(refreshCookie(undefined, { scheme: http, maxAgeSeconds: 3600 })).toBe('statichost_refresh=; Max-Age=0; Path=/auth; HttpOnly; SameSite=Strict');
    expect(retiredCookieDeletion(http)).toBeUndefined();
  });

  it('finds the refresh token among other cookies', () => {
    expect(readRefreshCookies('a=1; __Host-statichost_refresh=rt_xyz; b=2', https)).toEqual({ token: 'rt_xyz', count: 1, retired: false });
    expect(readRefreshCookies('a=1; statichost_refresh=rt_xyz; b=2', http)).toEqual({ token: 'rt_xyz', count: 1, retired: false });
    expect(readRefreshCookies('a=1', https)).toEqual({ count: 0, retired: false });
    expect(readRefreshCookies('__Host-statichost_refresh=', https)).toEqual({ count: 1, retired: false });
    expect(readRefreshCookies(undefined, https)).toEqual({ count: 0, retired: false });
  });

  it('counts every cookie of the name, so a planted second one is seen rather than one of the two guessed', () => {
    // What a browser sends after a sibling host set the cookie for the parent domain with a longer path: that one first.
    expect(readRefreshCookies('statichost_refresh=rt_planted; statichost_refresh=rt_real', http)).toEqual({ count: 2, retired: false });
    expect(readRefreshCookies('__Host-statichost_refresh=rt_a;__Host-statichost_refresh=rt_b', https)).toEqual({ count: 2, retired: false });
    // Names are case-sensitive, and a nameless cookie or a name that merely contains it is another cookie.
    expect(readRefreshCookies('__host-statichost_refresh=rt_x; x__Host-statichost_refresh=rt_y; =rt_z; __Host-statichost_refresh=rt_a', https)).toEqual({
      token: 'rt_a',
      count: 1,
      retired: false,
    });
  });

  it('under https the retired name is never read, only noticed (so it can be deleted)', () => {
    expect(readRefreshCookies('statichost_refresh=rt_old', https)).toEqual({ count: 0, retired: true });
    expect(readRefreshCookies('statichost_refresh=rt_planted; __Host-statichost_refresh=rt_real', https)).toEqual({
      token: 'rt_real',
      count: 1,
      retired: true,
    });
  });
});
