/**
 * One CSV field (RFC 4180), safe to open in a spreadsheet: a value a spreadsheet
 * would run as a formula (starting with = + - @, a tab or a carriage return) gets a
 * leading apostrophe, as OWASP recommends; a value with a comma, semicolon, tab, quote
 * or line break is quoted with its quotes doubled. A semicolon is quoted too because a
 * spreadsheet of a locale whose list separator is `;` starts a new cell there, and the
 * text after it (`x;=cmd…`) would be a cell of its own, run as a formula.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV record with its CRLF terminator. */
export function csvRow(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
