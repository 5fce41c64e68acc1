import { SESSION_MARKER_COOKIE, sessionMarkerCookie } from './session-marker';

describe('session marker cookie', () => {
  it('is readable by scripts (no HttpOnly), holds no secret, lives as long as the refresh cookie, on every path', () => {
    expect(sessionMarkerCookie(true, { secure: false, maxAgeSeconds: 3600 })).toBe(`${SESSION_MARKER_COOKIE}=1; Max-Age=3600; Path=/; SameSite=Strict`);
    expect(sessionMarkerCookie(true, { secure: true, maxAgeSeconds: 3600 })).toBe(`${SESSION_MARKER_COOKIE}=1; Max-Age=3600; Path=/; Secure; SameSite=Strict`);
  });

  it('is deleted with Max-Age=0', () => {
    expect(sessionMarkerCookie(false, { secure: false, maxAgeSeconds: 3600 })).toBe(`${SESSION_MARKER_COOKIE}=; Max-Age=0; Path=/; SameSite=Strict`);
  });
});
