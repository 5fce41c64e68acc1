import { relyingParty } from './relying-party';

describe('relyingParty', () => {
  it('is the first API host without its port, and every API host is an origin, with the public scheme', () => {
    expect(relyingParty({ apiHosts: ['api.example.com', 'dash.example.com:8443'], apiBaseUrl: 'https://api.example.com' })).toEqual({
      id: 'api.example.com',
      origins: ['https://api.example.com', 'https://dash.example.com:8443'],
    });
  });

  it('gives hosts without a port the public port', () => {
    expect(relyingParty({ apiHosts: ['localhost'], apiBaseUrl: 'http://localhost:3000', publicPort: 3000 })).toEqual({
      id: 'localhost',
      origins: ['http://localhost:3000'],
    });
  });

  it('without API hosts, is the public API URL’s host and origin', () => {
    expect(relyingParty({ apiHosts: [], apiBaseUrl: 'http://localhost:41234', publicPort: 41234 })).toEqual({
      id: 'localhost',
      origins: ['http://localhost:41234'],
    });
  });

  it('accepts the public API URL too when it differs from the API hosts', () => {
    expect(relyingParty({ apiHosts: ['api.example.com'], apiBaseUrl: 'https://example.com/' })).toEqual({
      id: 'api.example.com',
      origins: ['https://api.example.com', 'https://example.com'],
    });
  });
});
