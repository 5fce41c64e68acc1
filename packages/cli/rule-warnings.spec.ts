import { formatRuleWarning, hasRuleFiles } from './rule-warnings';

describe('rule warnings in the CLI', () => {
  it('names the file and the line, or the file alone for line 0', () => {
    expect(formatRuleWarning({ file: '_redirects', line: 4, message: 'is shadowed by line 2' })).toBe('_redirects line 4: is shadowed by line 2');
    expect(formatRuleWarning({ file: '_headers', line: 0, message: 'never applies' })).toBe('_headers: never applies');
  });

  it('asks for warnings only when a rules file is at the root of the deploy', () => {
    expect(hasRuleFiles([{ path: 'index.html' }, { path: '_redirects' }])).toBe(true);
    expect(hasRuleFiles([{ path: '_headers' }])).toBe(true);
    expect(hasRuleFiles([{ path: 'index.html' }, { path: 'docs/_redirects' }])).toBe(false);
  });
});
