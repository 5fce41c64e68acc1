import { ApiError } from '../common/errors';
import { REFRESH_COOKIE, refreshCookie, refreshTokenFromCookies, sessionMode } from './session-cookie';

describe('cookie-mode sessions', () => {
  it('reads the mode from X-Session-Mode and refuses anything else by name', () => {
    expect(sessionMode(undefined)).toBe('body');
    expect(sessionMode('cookie')).toBe('cookie');
    expect(sessionMode(' Cookie ')).toBe('cookie');
    expect(() => sessionMode('cookies')).toThrow(ApiError);
    expect(() => sessionMode('')).toThrow(/X-Session-Mode must be "cookie"/);
  });

  it('sets an HttpOnly, SameSite=Strict cookie on /auth, Secure only under https', () => {
    const plain = refreshCookie('rt_abc', { secure: false, maxAgeSeconds: 3600 });
    expect(plain).toBe(`${REFRESH_COOKIE}=rt_abc; Max-Age=3600; Path=/auth; HttpOnly; SameSite=Strict`);
    expect(refreshCookie('rt_abc', { secure: true, maxAgeSeconds: 3600 })).toContain('; Secure');
    expect(refreshCookie(undefined, { secure: false, maxAgeSeconds: 3600 })).toBe(`${REFRESH_COOKIE}=; Max-Age=0; Path=/auth; HttpOnly; SameSite=Strict`);
  });

  it('finds the refresh token among other cookies', () => {
    expect(refreshTokenFromCookies(`a=1; ${REFRESH_COOKIE}=rt_xyz; b=2`)).toBe('rt_xyz');
    expect(refreshTokenFromCookies('a=1')).toBeUndefined();
    expect(refreshTokenFromCookies(`${REFRESH_COOKIE}=`)).toBeUndefined();
    expect(refreshTokenFromCookies(undefined)).toBeUndefined();
  });
});
