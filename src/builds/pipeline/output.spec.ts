import { relativeFolderProblem } from './output';

describe('relativeFolderProblem', () => {
  it('accepts folders inside the repository', () => {
    for (const folder of ['', 'dist', 'site/public', 'a.b/c']) expect(relativeFolderProblem(folder)).toBeUndefined();
  });

  it('refuses absolute paths, "..", backslashes and control characters', () => {
    expect(relativeFolderProblem('/etc')).toBe('is absolute; give it relative to the repository');
    expect(relativeFolderProblem('../other')).toBe('has a ".." segment');
    expect(relativeFolderProblem('dist/../../x')).toBe('has a ".." segment');
    expect(relativeFolderProblem('a\\b')).toBe('contains a backslash; separate folders with "/"');
    expect(relativeFolderProblem('a\nb')).toBe('contains a control character');
  });
});
