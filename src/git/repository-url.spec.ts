import { assertRepositoryAllowed, checkRepositoryUrl, type Lookup, refusedAddress, RepositoryLookupFailed, RepositoryNotAllowed } from './repository-url';

const STRICT = { GIT_ALLOW_PRIVATE_ADDRESSES: false };
const LAX = { GIT_ALLOW_PRIVATE_ADDRESSES: true };

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof RepositoryNotAllowed) return err.reason;
    throw err;
  }
  throw new Error('not refused');
}

const answers =
  (table: Record<string, string[]>): Lookup =>
  (host) =>
    host in table ? Promise.resolve(table[host]) : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));

describe('checkRepositoryUrl', () => {
  it.each([
    ['https://github.com/acme/site.git', 'https://github.com/acme/site.git', 'github.com', 443],
    ['https://git.example.com:8443/team/site', 'https://git.example.com:8443/team/site', 'git.example.com', 8443],
    ['HTTPS://GitHub.com/acme/site.git', 'https://github.com/acme/site.git', 'github.com', 443],
    ['https://[2606:4700::1]/a.git', 'https://[2606:4700::1]/a.git', '2606:4700::1', 443],
  ])('takes %s as %s', (input, url, host, port) => {
    expect(checkRepositoryUrl(input, STRICT)).toEqual({ url, host, port });
  });

  it.each([
    ['http://github.com/acme/site.git', 'http:// is not encrypted'],
    ['file:///srv/repo.git', 'file://'],
    ['ssh://git@github.com/acme/site.git', 'ssh://'],
    ['git://github.com/acme/site.git', 'git://'],
    ['ext::sh -c touch% /tmp/pwned', '"ext::" transport'],
    ['ext::sh', '"ext::" transport'],
    ['fd::3', '"fd::" transport'],
    ['git@github.com:acme/site.git', 'scp-like'],
    ['github.com:acme/site.git', 'scp-like'],
    ['/srv/repo.git', 'not a URL'],
    ['https://user:pass@github.com/acme/site.git', 'credentials'],
    ['https://x-access-token@github.com/acme/site.git', 'credentials'],
    ['https://github.com/acme/site.git#main', 'fragment'],
    ['https://github.com/acme/site\n.git', 'control character'],
    ['https://github.com/acme/\u0000site.git', 'control character'],
    ['', 'empty'],
    ['https://github.com/', 'names no repository'],
    ['https://github.com', 'names no repository'],
    ['https://127.0.0.1/repo.git', 'loopback'],
    ['https://0x7f.1/repo.git', 'loopback'],
    ['https://2130706433/repo.git', 'loopback'],
    ['https://10.0.0.8/repo.git', 'private'],
    ['https://192.168.1.2/repo.git', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://100.64.1.1/repo.git', 'carrier-grade NAT'],
    ['https://[::1]/repo.git', 'loopback'],
    ['https://[::ffff:127.0.0.1]/repo.git', 'loopback'],
    ['https://[fd00::1]/repo.git', 'unique-local'],
    ['https://[fe80::1]/repo.git', 'link-local'],
    ['https://0.0.0.0/repo.git', 'unspecified'],
    ['https://224.0.0.1/repo.git', 'multicast'],
  ])('refuses %j (%s)', (input, why) => {
    expect(reason(() => checkRepositoryUrl(input, STRICT))).toContain(why);
  });

  it('refuses an over-long URL', () => {
    expect(reason(() => checkRepositoryUrl(`https://github.com/${'a'.repeat(2100)}`, STRICT))).toContain('longer than 2048');
  });

  it('takes http:// and private addresses only when the operator allows them', () => {
    expect(checkRepositoryUrl('http://127.0.0.1:9418/site.git', LAX).url).toBe('http://127.0.0.1:9418/site.git');
    expect(checkRepositoryUrl('https://10.0.0.8/site.git', LAX).host).toBe('10.0.0.8');
    // Transports, credentials and scp-like addresses stay refused.
    for (const input of ['file:///srv/repo.git', 'ssh://host/repo.git', 'git://host/repo.git', 'ext::sh', 'git@host:repo.git', 'http://u:p@127.0.0.1/r.git']) {
      expect(() => checkRepositoryUrl(input, LAX)).toThrow(RepositoryNotAllowed);
    }
  });
});

describe('refusedAddress', () => {
  it.each(['8.8.8.8', '140.82.121.3', '2606:4700::1', '::ffff:8.8.8.8'])('takes the public address %s', (address) => {
    expect(refusedAddress(address, STRICT)).toBeNull();
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1%eth0',
    'fc00::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2001::1',
    '192.0.2.1',
    // IPv4-compatible and local-use NAT64 forms: the address policy shared with forge API calls (src/shared/outbound-address.ts).
    '::7f00:1',
    '64:ff9b:1::a00:1',
  ])('refuses %s', (address) => {
    expect(refusedAddress(address, STRICT)).not.toBeNull();
  });
});

describe('assertRepositoryAllowed', () => {
  const lookup = answers({
    'git.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'sneaky.example.com': ['93.184.215.14', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'v6local.example.com': ['::1'],
  });

  it('passes a public host with every address it resolves to', async () => {
    await expect(assertRepositoryAllowed('https://git.example.com/a.git', STRICT, lookup)).resolves.toEqual({
      url: 'https://git.example.com/a.git',
      host: 'git.example.com',
      port: 443,
      addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
  });

  it.each([
    ['https://sneaky.example.com/a.git', 'resolves to a loopback address', '127.0.0.1'],
    ['https://metadata.example.com/a.git', 'resolves to a link-local address', '169.254.169.254'],
    ['https://v6local.example.com/a.git', 'resolves to a loopback address', '::1'],
    ['https://nowhere.example.com/a.git', 'does not exist', undefined],
  ])('refuses %s: %s, never naming the address', async (url, why, address) => {
    const err = (await assertRepositoryAllowed(url, STRICT, lookup).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(why);
    if (address) expect(err.message).not.toContain(address);
  });

  it('asks no resolver for an address, nor for a URL the syntax refuses', async () => {
    const asked: string[] = [];
    const spy: Lookup = (host) => {
      asked.push(host);
      return Promise.resolve(['8.8.8.8']);
    };
    await expect(assertRepositoryAllowed('https://8.8.8.8/a.git', STRICT, spy)).resolves.toMatchObject({ addresses: ['8.8.8.8'] });
    await expect(assertRepositoryAllowed('ssh://git.example.com/a.git', STRICT, spy)).rejects.toThrow(RepositoryNotAllowed);
    expect(asked).toEqual([]);
  });

  it('tells a resolver that did not answer from a host that does not exist', async () => {
    const down: Lookup = () => Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' }));
    await expect(assertRepositoryAllowed('https://git.example.com/a.git', STRICT, down)).rejects.toThrow(RepositoryLookupFailed);
  });

  it('lets private answers through when the operator allows them', async () => {
    await expect(assertRepositoryAllowed('http://sneaky.example.com/a.git', LAX, lookup)).resolves.toMatchObject({ addresses: ['93.184.215.14', '127.0.0.1'] });
  });
});
