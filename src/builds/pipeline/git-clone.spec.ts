import { cloneFailure, gitConfigArgs, gitEnv, GitFailed, refProblem, resolveEntry } from './git-clone';

describe('refProblem', () => {
  it('accepts branches, tags and commit shas', () => {
    for (const ref of ['main', 'feature/login-form', 'v1.2.3', 'release-2024.10', 'a'.repeat(40), 'refs/heads/main', 'user@host', 'release/1.2+hotfix']) {
      expect(refProblem(ref)).toBeUndefined();
    }
  });

  it('refuses options, refspecs, revision expressions and what check-ref-format refuses', () => {
    expect(refProblem('')).toBe('is empty');
    expect(refProblem('--upload-pack=touch /tmp/x')).toBe('starts with "-"');
    expect(refProblem('-b')).toBe('starts with "-"');
    expect(refProblem('main:refs/heads/evil')).toBe('contains ":"');
    expect(refProblem('+main')).toBe('starts with "+"');
    expect(refProblem('main~1')).toBe('contains "~"');
    expect(refProblem('main^')).toBe('contains "^"');
    expect(refProblem('a\nb')).toBe('contains a space or a control character');
    expect(refProblem('a b')).toBe('contains a space or a control character');
    expect(refProblem('a..b')).toBe('contains "..", "@{" or "//"');
    expect(refProblem('main@{1}')).toBe('contains "..", "@{" or "//"');
    expect(refProblem('x.lock')).toBe('is not a valid branch, tag or commit name');
    expect(refProblem('x'.repeat(256))).toBe('is longer than 255 characters');
  });
});

describe('gitConfigArgs', () => {
  it('allows https only (http too when private addresses are allowed), no redirects, no hooks, no symbolic links', () => {
    const strict = gitConfigArgs({ allowHttp: false });
    expect(strict).toEqual(
      expect.arrayContaining([
        'protocol.allow=never',
        'protocol.https.allow=always',
        'http.followRedirects=false',
        'core.hooksPath=/dev/null',
        'core.symlinks=false',
      ]),
    );
    expect(strict).not.toContain('protocol.http.allow=always');
    expect(gitConfigArgs({ allowHttp: true })).toContain('protocol.http.allow=always');
    // Every value follows a -c.
    strict.forEach((arg, i) => expect(i % 2 === 0 ? arg : '-c').toBe('-c'));
  });
});

describe('gitEnv', () => {
  const access = { allowHttp: false, accessToken: null, home: '/scratch/home', path: '/usr/bin:/bin' };

  it('is the whole environment: no system or global config, no prompt, https only', () => {
    expect(gitEnv(access)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/scratch/home',
      XDG_CONFIG_HOME: '/scratch/home',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ALLOW_PROTOCOL: 'https',
      GIT_PROTOCOL_FROM_USER: '0',
      LC_ALL: 'C',
    });
    expect(gitEnv({ ...access, allowHttp: true }).GIT_ALLOW_PROTOCOL).toBe('https:http');
  });

  it('passes a token as an Authorization header through GIT_CONFIG_* (x-access-token:<token>, Basic)', () => {
    const env = gitEnv({ ...access, accessToken: 'tok-123' });
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from('x-access-token:tok-123').toString('base64')}`,
    });
  });
});

describe('cloneFailure', () => {
  it('says what the author can do, from git’s message', () => {
    expect(cloneFailure(new GitFailed('ls-remote', "fatal: could not read Username for 'https://x': terminal prompts disabled"), 'main')).toMatch(
      /refused access/,
    );
    expect(cloneFailure(new GitFailed('fetch', "fatal: couldn't find remote ref nope"), 'nope')).toBe(
      'clone failed: ref "nope" was not found in the repository',
    );
    expect(cloneFailure(new GitFailed('ls-remote', "fatal: repository 'https://x/y.git/' not found"), 'main')).toBe('clone failed: repository not found');
    expect(cloneFailure(new GitFailed('fetch', 'fatal: something else'), 'main')).toBe('clone failed: git fetch: fatal: something else');
  });
});

describe('resolveEntry', () => {
  it('is curl’s host:port:addresses, IPv6 in brackets', () => {
    expect(resolveEntry({ host: 'git.example.com', port: 443, addresses: ['203.0.113.7', '2001:db8::7'] })).toBe(
      'git.example.com:443:203.0.113.7,[2001:db8::7]',
    );
    expect(resolveEntry({ host: '::1', port: 8080, addresses: ['::1'] })).toBe('[::1]:8080:[::1]');
  });
});
