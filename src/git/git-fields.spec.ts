import { accessTokenProblem, branchNameProblem, commandProblem, ENV_NAME, envValueProblem, nodeVersionProblem, normalizeDirectory } from './git-fields';

describe('branchNameProblem', () => {
  it.each(['main', 'release/2.x', 'feature/a-b_c', 'v1.2.3', 'dependabot/npm_and_yarn/vite-5.0.1', 'x'.repeat(255)])('takes %s', (name) => {
    expect(branchNameProblem(name)).toBeNull();
  });

  it.each([
    ['', 'empty'],
    ['x'.repeat(256), 'at most 255'],
    ['-delete', '"-"'],
    ['--upload-pack=touch', '"-"'],
    ['a b', 'spaces'],
    ['a\tb', 'control'],
    ['a..b', '".."'],
    ['a~1', '~'],
    ['a^', '~'],
    ['a:b', '~'],
    ['a?', '~'],
    ['a*', '~'],
    ['a[b', '~'],
    ['a\\b', '~'],
    ['a@{1}', '"@{"'],
    ['@', '"@"'],
    ['/main', '"/"'],
    ['main/', '"/"'],
    ['a//b', '"//"'],
    ['main.', '"."'],
    ['.hidden', 'start with "."'],
    ['a/.b', 'start with "."'],
    ['main.lock', '".lock"'],
    ['a.lock/b', '".lock"'],
  ])('refuses %j (%s)', (name, why) => {
    expect(branchNameProblem(name)).toContain(why);
  });
});

describe('normalizeDirectory', () => {
  it.each([
    ['', ''],
    ['.', ''],
    ['./', ''],
    ['site', 'site'],
    ['./site/', 'site'],
    ['apps//web/./dist', 'apps/web/dist'],
  ])('stores %j as %j', (input, stored) => {
    expect(normalizeDirectory(input)).toEqual({ value: stored });
  });

  it.each([
    ['/etc', 'leading "/"'],
    ['..', '".."'],
    ['site/../../x', '".."'],
    ['a\\b', '"\\"'],
    ['a\nb', 'control'],
    ['a'.repeat(1025), 'at most 1024'],
  ])('refuses %j (%s)', (input, why) => {
    const result = normalizeDirectory(input);
    expect('problem' in result && result.problem).toContain(why);
  });
});

describe('nodeVersionProblem', () => {
  it.each(['20', '22.x', '>=20', '^20.11', '~22.3.0', '>=20 <23', '20.11.1', '22.*'])('takes %s', (v) => {
    expect(nodeVersionProblem(v)).toBeNull();
  });

  it.each(['', 'lts', 'node 20', '20; rm -rf /', '$(id)', '>=20 <23 || 18', '1'.repeat(33), 'v20'])('refuses %j', (v) => {
    expect(nodeVersionProblem(v)).not.toBeNull();
  });
});

describe('commands, tokens, variables', () => {
  it('takes a command up to 4 KiB, refuses blank, longer, or NUL', () => {
    expect(commandProblem('npm run build && node scripts/post.js')).toBeNull();
    expect(commandProblem('é'.repeat(2048))).toBeNull();
    expect(commandProblem('é'.repeat(2049))).toContain('4096 bytes');
    expect(commandProblem('   ')).toContain('blank');
    expect(commandProblem('a\u0000b')).toContain('NUL');
  });

  it('takes a token without whitespace up to 4 KiB', () => {
    expect(accessTokenProblem('ghp_0123456789abcdefghijABCDEFGHIJ012345')).toBeNull();
    expect(accessTokenProblem('x'.repeat(4097))).toContain('4096');
    expect(accessTokenProblem('a b')).toContain('whitespace');
    expect(accessTokenProblem('ab\n')).toContain('whitespace');
    expect(accessTokenProblem('')).toContain('null');
  });

  it('names variables as a shell does, values up to 32 KiB without NUL', () => {
    for (const ok of ['API_URL', '_x', 'a', 'A'.repeat(256)]) expect(ENV_NAME.test(ok)).toBe(true);
    for (const bad of ['', '1A', 'A-B', 'A.B', 'A B', 'Ä', 'A'.repeat(257)]) expect(ENV_NAME.test(bad)).toBe(false);
    expect(envValueProblem('')).toBeNull();
    expect(envValueProblem('line 1\nline 2')).toBeNull();
    expect(envValueProblem('x'.repeat(32 * 1024 + 1))).toContain('bytes');
    expect(envValueProblem('a\u0000')).toContain('NUL');
  });
});
