/**
 * One CSV field (RFC 4180), safe to open in a spreadsheet: a value a spreadsheet
 * would run as a formula (starting with = + - @, a tab or a carriage return) gets a
 * leading apostrophe, as OWASP recommends; a value with a comma, quote or line
 * break is quoted with its quotes doubled.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV record with its CRLF terminator. */
export function csvRow(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
