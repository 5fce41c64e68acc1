import type { ParseResult, RuleError } from './rule-file';

/**
 * Test fixture for a rules parser: `rules(text)` gives what it parsed (failing the test
 * on any error), `errorsOf(text)` the errors it found (failing the test when there are none).
 */
export function ruleParsing<T>(parse: (file: Uint8Array) => ParseResult<T>) {
  return {
    rules(text: string): T {
      const result = parse(Buffer.from(text));
      if (!result.ok) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
      return result.rules;
    },
    errorsOf(text: string | Buffer): RuleError[] {
      const result = parse(typeof text === 'string' ? Buffer.from(text) : text);
      if (result.ok) throw new Error('expected errors');
      return result.errors;
    },
  };
}
