import { csvField, csvRow } from './csv';

describe('csv', () => {
  it('leaves plain values alone', () => {
    expect(csvField('ada@example.com')).toBe('ada@example.com');
    expect(csvRow(['lead_1', 'ada@example.com', '2025-01-01T00:00:00.000Z'])).toBe('lead_1,ada@example.com,2025-01-01T00:00:00.000Z\r\n');
  });

  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('"quoted"@example.com')).toBe('"""quoted""@example.com"');
    expect(csvField('a\nb')).toBe('"a\nb"');
  });

  it('quotes a semicolon or a tab, where spreadsheets of some locales start a new cell, and changes nothing else of it', () => {
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('a\tb')).toBe('"a\tb"');
    expect(csvField("x;=cmd|' /C calc'!A0")).toBe(`"x;=cmd|' /C calc'!A0"`);
    expect(csvField('Thanks;-)')).toBe('"Thanks;-)"');
  });

  it.each(['=HYPERLINK("http://x")@a.io', '+1@a.io', '-2@a.io', '@sum@a.io', '\tx@a.io', '\rx@a.io'])(
    'defuses formula-looking %j with an apostrophe',
    (value) => {
      const field = csvField(value);
      const unquoted = field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field;
      expect(unquoted).toBe(`'${value}`);
    },
  );
});
