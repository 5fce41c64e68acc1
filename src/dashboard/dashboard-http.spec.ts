import { dashboardTarget, prefersHtml } from './dashboard-http';

describe('dashboard routing', () => {
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

  it('tells a browser navigation from an API client', () => {
    expect(prefersHtml(browser)).toBe(true);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
  });

  it('sends a browser at / to the app and leaves / to the API otherwise', () => {
    expect(dashboardTarget('/', browser)).toEqual({ kind: 'redirect', location: '/app/' });
    expect(dashboardTarget('/', '*/*')).toEqual({ kind: 'none' });
    expect(dashboardTarget('/app', '*/*')).toEqual({ kind: 'redirect', location: '/app/' });
  });

  it('answers every client route under /app with the index, and hashed files as assets', () => {
    expect(dashboardTarget('/app/', browser)).toEqual({ kind: 'index' });
    expect(dashboardTarget('/app/w/ws_1/projects/proj_2', undefined)).toEqual({ kind: 'index' });
    expect(dashboardTarget('/app/assets/index-Bx3k9.js', undefined)).toEqual({ kind: 'asset', file: 'index-Bx3k9.js' });
    expect(dashboardTarget('/app/assets/../../package.json', undefined)).toEqual({ kind: 'asset', file: '' });
    expect(dashboardTarget('/app/assets/.env', undefined)).toEqual({ kind: 'asset', file: '' });
  });

  it('leaves API paths alone', () => {
    for (const path of ['/projects', '/application', '/apps/x', '/health', '/docs']) expect(dashboardTarget(path, browser)).toEqual({ kind: 'none' });
  });
});
