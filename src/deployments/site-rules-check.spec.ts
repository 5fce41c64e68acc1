import type { ParseResult } from '../shared/site-rules/rule-file';
import { checkRuleFiles, warningsOf } from './site-rules-check';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('site-rules-check warnings', () => {
  it('names each parse warning by its file, in the parser’s order', () => {
    const parsed: ParseResult<object> = {
      ok: true,
      rules: {},
      warnings: [
        { line: 2, message: 'is shadowed by line 1' },
        { line: 5, message: 'never matches: no GeoIP database' },
      ],
    };
    expect(warningsOf('_redirects', parsed)).toEqual([
      { file: '_redirects', line: 2, message: 'is shadowed by line 1' },
      { file: '_redirects', line: 5, message: 'never matches: no GeoIP database' },
    ]);
    expect(warningsOf('_headers', { ok: true, rules: {}, warnings: [{ line: 0, message: 'x' }] })).toEqual([{ file: '_headers', line: 0, message: 'x' }]);
  });

  it('has none for a file that did not parse (those are errors, and the deploy is refused)', () => {
    expect(warningsOf('_redirects', { ok: false, errors: [{ line: 1, message: 'bad' }] })).toEqual([]);
  });

  it('returns an empty list for rule files that apply as written, or none at all', () => {
    expect(checkRuleFiles({}, [], { geoip: false }).warnings).toEqual([]);
    const checked = checkRuleFiles({ redirects: bytes('/old /new 301\n'), headers: bytes('/*\n  X-Frame-Options: DENY\n') }, ['new'], { geoip: false });
    expect(checked.warnings).toEqual([]);
    expect(checked.redirects).toBeDefined();
    expect(checked.headers).toBeDefined();
  });
});
