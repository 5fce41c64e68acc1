import { readSsoBrowserCookie, ssoBrowserCookie } from './sso-cookie';

describe('the SSO browser cookie', () => {
  it('under https: __Host- prefixed, Secure, Path=/, HttpOnly, SameSite=Lax (the provider’s redirect back is a cross-site navigation)', () => {
    expect(ssoBrowserCookie('v4lue', { https: true, maxAgeSeconds: 600 })).toBe(
      '__Host-statichost_sso=v4lue; Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax',
    );
    expect(ssoBrowserCookie(undefined, { https: true, maxAgeSeconds: 600 })).toBe('__Host-statichost_sso=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('under http: no prefix and no Secure, which browsers refuse from plain-http hosts', () => {
    expect(ssoBrowserCookie('v4lue', { https: false, maxAgeSeconds: 600 })).toBe('statichost_sso=v4lue; Max-Age=600; Path=/; HttpOnly; SameSite=Lax');
    expect(ssoBrowserCookie(undefined, { https: false, maxAgeSeconds: 600 })).toBe('statichost_sso=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
  });

  it('is read among other cookies, by the name of the scheme only', () => {
    expect(readSsoBrowserCookie('a=1; __Host-statichost_sso=v4lue; b=2', true)).toBe('v4lue');
    expect(readSsoBrowserCookie('a=1; statichost_sso=v4lue', false)).toBe('v4lue');
    // Under https the unprefixed name is anybody's to set: not read.
    expect(readSsoBrowserCookie('statichost_sso=v4lue', true)).toBeUndefined();
    expect(readSsoBrowserCookie('x__Host-statichost_sso=v4lue; __host-statichost_sso=v4lue', true)).toBeUndefined();
    expect(readSsoBrowserCookie('__Host-statichost_sso=', true)).toBeUndefined();
    expect(readSsoBrowserCookie(undefined, true)).toBeUndefined();
  });

  it('is not read when the request carries it twice: which of the two was planted cannot be known', () => {
    expect(readSsoBrowserCookie('statichost_sso=planted; statichost_sso=real', false)).toBeUndefined();
    expect(readSsoBrowserCookie('__Host-statichost_sso=a;__Host-statichost_sso=a', true)).toBeUndefined();
  });
});
