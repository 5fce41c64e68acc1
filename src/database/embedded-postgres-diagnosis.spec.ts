import { describePostgresFailure, isOurPostmaster, parsePostmasterPid } from './embedded-postgres-diagnosis';

const ctx = { port: 54329, databaseDir: '/data/postgres', exit: 1 };

describe('embedded PostgreSQL diagnosis', () => {
  it('reads the PID from postmaster.pid', () => {
    expect(parsePostmasterPid('4242\n/data/postgres\n1700000000\n54329\n')).toBe(4242);
    expect(parsePostmasterPid('')).toBeUndefined();
    expect(parsePostmasterPid('garbage\n')).toBeUndefined();
  });

  it('recognises a postmaster of this data directory only', () => {
    expect(isOurPostmaster(['/x/bin/postgres', '-D', '/data/postgres', '-p', '1'], '/data/postgres')).toBe(true);
    expect(isOurPostmaster(['/x/bin/postgres', '-D', '/other', '-p', '1'], '/data/postgres')).toBe(false);
    expect(isOurPostmaster(['/usr/bin/vim', '-D', '/data/postgres'], '/data/postgres')).toBe(false);
    expect(isOurPostmaster([], '/data/postgres')).toBe(false);
  });

  it('names the port when it is taken', () => {
    const tail = [
      '2025-01-01 00:00:00.000 UTC [1] LOG:  could not bind IPv4 address "127.0.0.1": Address already in use',
      '2025-01-01 00:00:00.000 UTC [1] FATAL:  could not create any TCP/IP sockets',
    ];
    expect(describePostgresFailure(tail, ctx)).toMatch(/127\.0\.0\.1:54329.*EMBEDDED_POSTGRES_PORT/);
  });

  it('names the other postmaster on a locked data directory', () => {
    const tail = ['FATAL:  lock file "postmaster.pid" already exists', 'HINT:  Is another postmaster (PID 777) running in data directory "/data/postgres"?'];
    expect(describePostgresFailure(tail, ctx)).toMatch(/pid 777/);
  });

  it('falls back to the last fatal line, one line long', () => {
    const msg = describePostgresFailure(['LOG:  starting', '2025 UTC [9] FATAL:  something odd', 'LOG:  database system is shut down'], ctx);
    expect(msg).toContain('(something odd;');
    expect(msg).not.toContain('\n');
  });
});
