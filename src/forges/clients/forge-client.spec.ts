import { forgeOfHost, githubApiBase } from './forge-client';
import { isPublicAddress } from './outbound';
import { isRetryable, statusOf } from './retry';

describe('githubApiBase', () => {
  it('is api.github.com for github.com and /api/v3 on an Enterprise host', () => {
    expect(githubApiBase('https://github.com')).toBe('https://api.github.com');
    expect(githubApiBase('https://GitHub.com')).toBe('https://api.github.com');
    expect(githubApiBase('https://github.acme.example')).toBe('https://github.acme.example/api/v3');
    expect(githubApiBase('https://github.acme.example:8443')).toBe('https://github.acme.example:8443/api/v3');
  });
});

describe('forgeOfHost', () => {
  it('knows the public forges and leaves other hosts to the caller', () => {
    expect(forgeOfHost('https://github.com/a/b.git')).toBe('github');
    expect(forgeOfHost('https://gitlab.com/g/s/p')).toBe('gitlab');
    expect(forgeOfHost('https://codeberg.org/a/b')).toBe('forgejo');
    expect(forgeOfHost('https://git.acme.example/a/b')).toBeNull();
    expect(forgeOfHost('not a url')).toBeNull();
  });
});

describe('isPublicAddress', () => {
  it('takes public unicast addresses only', () => {
    for (const a of ['140.82.112.3', '2606:50c0:8000::153', '::ffff:140.82.112.3']) expect([a, isPublicAddress(a)]).toEqual([a, true]);
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::',
      'nope',
      // The clones' rule (src/shared/outbound-address.ts): IPv6 forms that reach an IPv4 address decided elsewhere.
      '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::',
      '2001::1',
      '::7f00:1',
      'fe80::1%eth0',
    ]) {
      expect([a, isPublicAddress(a)]).toEqual([a, false]);
    }
  });
});

describe('isRetryable', () => {
  it('retries 5xx, 429 and no answer; not 4xx nor an address the policy refuses', () => {
    expect(isRetryable({ status: 502 })).toBe(true);
    expect(isRetryable({ status: 429 })).toBe(true);
    expect(isRetryable({ status: 404 })).toBe(false);
    expect(isRetryable(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }))).toBe(true);
    expect(isRetryable(new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ADDRESS_NOT_ALLOWED' }) }))).toBe(false);
    // Gitbeaker keeps the response in cause; Octokit's "no answer" is a 500 without a response.
    expect(statusOf({ name: 'GitbeakerRequestError', cause: { response: { status: 403 } } })).toBe(403);
    expect(statusOf({ name: 'HttpError', status: 500, response: undefined })).toBeUndefined();
  });
});
