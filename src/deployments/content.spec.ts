import fc from 'fast-check';

import { itMapsEach } from '../common/cases.fixture';
import { thrownBy } from '../common/thrown.fixture';
import { contentTypeFor, decodeContent, InvalidContentError, sha256Hex } from './content';

const messageOf = (fn: () => unknown): string => thrownBy(InvalidContentError, fn).message;

describe('decodeContent', () => {
  it('decodes utf8 by default', () => {
    expect(decodeContent('héllo', undefined, 0)).toEqual(Buffer.from([0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]));
    expect(decodeContent('héllo', null, 0).toString('utf8')).toBe('héllo');
    expect(decodeContent('<h1>hi</h1>', 'utf8', 0).toString()).toBe('<h1>hi</h1>');
  });

  it('accepts empty content', () => {
    expect(decodeContent('', 'utf8', 0)).toHaveLength(0);
    expect(decodeContent('', 'base64', 0)).toHaveLength(0);
  });

  it('refuses utf8 text with an unpaired surrogate rather than storing U+FFFD', () => {
    expect(messageOf(() => decodeContent('ab\ud800', 'utf8', 4))).toMatch(/^files\[4\]\.content is not valid Unicode text .* character 2\)/);
    expect(decodeContent('😀', 'utf8', 0)).toEqual(Buffer.from([0xf0, 0x9f, 0x98, 0x80]));
  });

  it.each([
    ['padded', 'aGVsbG8=', 'hello'],
    ['unpadded', 'aGVsbG8', 'hello'],
    ['two pad characters', 'aGk=', 'hi'],
    ['two pad characters (aGVsbA==)', 'aGVsbA==', 'hell'],
    ['no padding needed', 'aGVs', 'hel'],
    ['line-wrapped', 'aGVs\nbG8=\r\n', 'hello'],
    ['with spaces and tabs', ' aGVs\tbG8= ', 'hello'],
  ])('decodes %s base64', (_label, text, expected) => {
    expect(decodeContent(text, 'base64', 0).toString('latin1')).toBe(expected);
  });

  it('decodes all 256 byte values', () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(decodeContent(bytes.toString('base64'), 'base64', 0)).toEqual(bytes);
  });

  it.each<[string, string, RegExp]>([
    ['a character outside the alphabet', 'aGVs*bG8=', /unexpected character "\*" at position 4$/],
    ['the URL-safe alphabet', 'a-_b', /unexpected character "-" at position 1 \(the URL-safe alphabet is not accepted/],
    ['a non-ASCII character', 'aGVsé', /unexpected character "é"/],
    ['padding in the middle', 'aGk=aGk=', /"=" padding may only end the text/],
    ['three pad characters', 'aG===', /"=" padding may only end the text/],
    ['padding alone', '=', /padding/],
    ['too much padding', 'aGk==', /wrong amount of "=" padding for 3 characters/],
    ['padding that is not needed', 'aGVs==', /wrong amount of "=" padding for 4 characters/],
    ['too little padding', 'aG=', /wrong amount of "=" padding for 2 characters/],
    ['an impossible length', 'aGVsb', /its length \(5 characters without padding\) cannot be base64/],
    ['non-zero trailing bits', 'aGVsbG9=', /bits set beyond the final byte/],
    ['non-zero trailing bits, unpadded', 'aB', /bits set beyond the final byte/],
  ])('refuses base64 with %s', (_label, text, message) => {
    const msg = messageOf(() => decodeContent(text, 'base64', 2));
    expect(msg).toMatch(/^files\[2\]\.content is not valid base64: /);
    expect(msg).toMatch(message);
  });

  it.each<[string, unknown, string]>([
    ['a number', 42, 'files[1].content must be a string, got a number'],
    ['null', null, 'files[1].content must be a string, got null'],
    ['undefined', undefined, 'files[1].content must be a string, got a undefined'],
    ['an array of bytes', [1, 2], 'files[1].content must be a string, got an array'],
  ])('refuses %s as content', (_label, content, message) => {
    expect(messageOf(() => decodeContent(content, 'utf8', 1))).toBe(message);
  });

  it.each<[unknown, string]>([
    ['latin1', '"latin1"'],
    ['UTF8', '"UTF8"'],
    ['hex', '"hex"'],
    ['', '""'],
    [64, 'a number'],
  ])('refuses the encoding %j, listing the accepted ones', (encoding, shown) => {
    expect(messageOf(() => decodeContent('x', encoding, 3))).toBe(`files[3].encoding must be "utf8" or "base64", got ${shown}`);
  });

  it('property: base64 of any bytes, padded or not, wrapped or not, decodes to those bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), fc.boolean(), (arr, pad, wrap) => {
        const bytes = Buffer.from(arr);
        let text = bytes.toString('base64');
        if (!pad) text = text.replace(/=+$/, '');
        if (wrap) text = text.replace(/(.{76})/g, '$1\n');
        expect(decodeContent(text, 'base64', 0)).toEqual(bytes);
      }),
    );
  });

  it('property: anything accepted as base64 re-encodes to the same text (no silent loss)', () => {
    const alphabet = fc.constantFrom(...'AQgw+/=-_ \n*9'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 24 }), (text) => {
        let bytes: Buffer;
        try {
          bytes = decodeContent(text, 'base64', 0);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidContentError);
          return;
        }
        const strip = (s: string) => s.replace(/[\s=]/g, '');
        expect(strip(bytes.toString('base64'))).toBe(strip(text));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('contentTypeFor', () => {
  itMapsEach('%s → %s', contentTypeFor, [
    ['index.html', 'text/html; charset=utf-8'],
    ['a/b/style.css', 'text/css; charset=utf-8'],
    ['app.js', 'text/javascript; charset=utf-8'],
    ['mod.mjs', 'text/javascript; charset=utf-8'],
    ['data.json', 'application/json; charset=utf-8'],
    ['app.js.map', 'application/json; charset=utf-8'],
    ['site.webmanifest', 'application/manifest+json; charset=utf-8'],
    ['logo.svg', 'image/svg+xml; charset=utf-8'],
    ['sitemap.xml', 'application/xml; charset=utf-8'],
    ['feed.rss', 'application/rss+xml; charset=utf-8'],
    ['robots.txt', 'text/plain; charset=utf-8'],
    ['photo.JPG', 'image/jpeg'],
    ['image.png', 'image/png'],
    ['font.woff2', 'font/woff2'],
    ['module.wasm', 'application/wasm'],
    ['doc.pdf', 'application/pdf'],
    ['LICENSE', 'application/octet-stream'],
    ['.htaccess', 'application/octet-stream'],
    ['file.unknownext', 'application/octet-stream'],
  ]);
});

describe('sha256Hex', () => {
  it('is the SHA-256 of the bytes, in lower-case hex', () => {
    expect(sha256Hex(Buffer.from(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
