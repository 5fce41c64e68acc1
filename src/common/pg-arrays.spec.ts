import { pgArray } from './pg-arrays';

// node-postgres's own encoder (no types: a module of its internals, read here only to compare).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/** What node-postgres itself sends for an array parameter: pgArray must send the same text. */
const asPg = (values: (string | number)[]) => prepareValue(values) as string;

describe('pgArray', () => {
  it.each([
    ['no elements', []],
    ['ids', ['prj_a1', 'prj_b2']],
    ['integers', [0, 1, 1764770400000, -3, 9007199254740991]],
    ['empty strings and the word NULL', ['', 'NULL', 'null']],
    ['separators and braces', ['a,b', '{x}', ' lead', 'trail ', 'tab\there', 'line\nbreak']],
    ['quotes and backslashes', ['say "hi"', 'C:\\path', '\\"', '"', '\\']],
    ['text beyond ASCII', ['/café', '/日本', '/emoji/😀']],
    ['dates', ['2026-12-03', '2026-12-04']],
  ])('sends what node-postgres sends: %s', (_name, values) => {
    expect(pgArray(values as (string | number)[])).toBe(asPg(values as (string | number)[]));
  });
});
