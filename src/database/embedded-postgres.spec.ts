import { parse } from 'pg-connection-string';

import { embeddedUrl, MAX_SOCKET_PATH_BYTES, socketDirectory } from './embedded-postgres';

describe('the embedded server’s socket', () => {
  it('is the cluster directory when the socket path fits in sun_path', () => {
    expect(socketDirectory('/var/lib/statichost/clusters/0123456789abcdef', 54329)).toBe('/var/lib/statichost/clusters/0123456789abcdef');
    const longest = `/${'d'.repeat(MAX_SOCKET_PATH_BYTES - '/.s.PGSQL.54329'.length - 1)}`;
    expect(socketDirectory(longest, 54329)).toBe(longest);
    expect(socketDirectory(`${longest}x`, 54329)).toBeUndefined();
  });

  it('is not used for a directory whose name unix_socket_directories would split or unquote', () => {
    expect(socketDirectory('/data/my cluster', 5432)).toBeUndefined();
    expect(socketDirectory('/data/a,b', 5432)).toBeUndefined();
    expect(socketDirectory('/data/"q"', 5432)).toBeUndefined();
  });

  it('is named in the URL so that pg connects through it, also after a test swaps the database name', () => {
    const url = embeddedUrl('p@ss/word', 54329, 'statichost', '/tmp/statichost-pg/postgres');
    expect(parse(url)).toMatchObject({ host: '/tmp/statichost-pg/postgres', port: '54329', user: 'postgres', password: 'p@ss/word', database: 'statichost' });
    const other = new URL(url);
    other.pathname = '/another';
    expect(parse(other.toString())).toMatchObject({ host: '/tmp/statichost-pg/postgres', database: 'another' });
  });

  it('falls back to 127.0.0.1 without a socket directory', () => {
    expect(parse(embeddedUrl('pw', 5432, 'statichost', undefined))).toMatchObject({ host: '127.0.0.1', port: '5432', database: 'statichost' });
  });
});
