import { apiHostsSharingCookies } from './cookie-scope';

describe('API hosts that share a cookie parent with the sites', () => {
  it('finds the layout of issue 26: api.example.com beside *.sites.example.com', () => {
    expect(apiHostsSharingCookies(['api.example.com'], 'sites.example.com')).toEqual([{ apiHost: 'api.example.com', parent: 'example.com' }]);
    // Ports are not part of a cookie's scope; multi-label public suffixes count as one.
    expect(apiHostsSharingCookies(['api.example.co.uk:8443'], 'sites.example.co.uk')).toEqual([{ apiHost: 'api.example.co.uk', parent: 'example.co.uk' }]);
    // The API on SITES_DOMAIN itself (API_HOSTS unset: the API's address falls back to it).
    expect(apiHostsSharingCookies(['example.com'], 'example.com')).toEqual([{ apiHost: 'example.com', parent: 'example.com' }]);
    expect(apiHostsSharingCookies(['example.com', 'api.example.com', 'api.other.com'], 'example.com').map((h) => h.apiHost)).toEqual([
      'example.com',
      'api.example.com',
    ]);
  });

  it('says nothing when the sites have their own registrable domain', () => {
    expect(apiHostsSharingCookies(['api.example.com'], 'example-sites.com')).toEqual([]);
    expect(apiHostsSharingCookies(['api.example.com'], 'sites.example.net')).toEqual([]);
    // SITES_DOMAIN on the Public Suffix List's private section: each site is its own registrable domain.
    expect(apiHostsSharingCookies(['api.github.io'], 'github.io')).toEqual([]);
    expect(apiHostsSharingCookies(['dash.pages.dev'], 'pages.dev')).toEqual([]);
  });

  it('says nothing for localhost (browsers refuse Domain=localhost) or IP addresses', () => {
    expect(apiHostsSharingCookies(['localhost'], 'localhost')).toEqual([]);
    expect(apiHostsSharingCookies(['127.0.0.1:3000', '[::1]:3000'], 'localhost')).toEqual([]);
    expect(apiHostsSharingCookies([], 'sites.example.com')).toEqual([]);
  });
});
