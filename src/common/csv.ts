/**
 * One CSV field (RFC 4180), safe to open in a spreadsheet: a value a spreadsheet
 * would run as a formula (starting with = + - @, a tab or a carriage return, or holding
 * one of those after a `;` or a tab, where a spreadsheet of a locale whose list separator
 * is `;` starts a new cell) gets a leading apostrophe, as OWASP recommends; a value with a
 * comma, semicolon, tab, quote or line break is quoted with its quotes doubled, so no
 * locale splits it.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]|[;\t]\s*[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV record with its CRLF terminator. */
export function csvRow(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
