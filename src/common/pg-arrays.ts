/**
 * PostgreSQL array literals for large parameters (a flush's tens of thousands of rows),
 * text exactly as node-postgres would send for the same array, built with `join`.
 * node-postgres quotes each element through two regular expressions (`escapeElement`):
 * for the nine arrays of 100,000 rollup rows that was about half a second of the event
 * loop, most of a flush's time on the serving core (docs/scaling.md). Here a whole array
 * is tested once for a quote or a backslash, and only an array holding one escapes each
 * element. Elements are never null (node-postgres would send NULL; these arrays have none).
 */
export function pgArray(values: readonly (string | number)[]): string {
  if (values.length === 0) return '{}';
  const plain = values.join(',');
  if (!NEEDS_ESCAPE.test(plain)) return `{"${values.join('","')}"}`;
  return `{${values.map((v) => `"${String(v).replace(ESCAPED, '\\$&')}"`).join(',')}}`;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;
