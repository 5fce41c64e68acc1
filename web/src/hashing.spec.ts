import { createHash, randomBytes } from 'node:crypto';

import { bytesToBase64, hashFiles, mapLimit, sha256Hex } from './hashing';
import { INLINE_MAX_FILE } from './sdk';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const buffer = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

describe('dashboard hashing helpers', () => {
  it('sha256Hex: WebCrypto and, without it (plain http), @noble/hashes give the same hex digest', async () => {
    for (const bytes of [new Uint8Array(0), randomBytes(1), randomBytes(70_000)]) {
      expect(await sha256Hex(buffer(bytes))).toBe(sha256(bytes));
      expect(await sha256Hex(buffer(bytes), null)).toBe(sha256(bytes));
    }
  });

  it('hashFiles: every file once, in the order given, large ones among small; bytes kept only for files that may ride inline', async () => {
    const contents = [randomBytes(10), randomBytes(INLINE_MAX_FILE + 1), randomBytes(0), randomBytes(INLINE_MAX_FILE), randomBytes(300_000), randomBytes(5)];
    // More small files than are read at a time, so reads finish out of order.
    for (let i = 0; i < 300; i++) contents.push(randomBytes(i % 7 === 0 ? 20_000 : 100));
    const files = contents.map((bytes, i) => ({ path: `dir/f${i}.bin`, file: new File([bytes], `f${i}.bin`) }));
    for (const subtle of [undefined, null]) {
      let progress = 0;
      const hashed = await hashFiles(files, () => progress++, { subtle });
      expect(progress).toBe(files.length);
      expect(hashed.map((f) => f.path)).toEqual(files.map((f) => f.path));
      expect(hashed.map((f) => f.sha256)).toEqual(contents.map(sha256));
      expect(hashed.map((f) => f.size)).toEqual(contents.map((c) => c.length));
      expect(hashed.map((f) => f.bytes !== undefined)).toEqual(contents.map((c) => c.length <= INLINE_MAX_FILE));
      expect(Buffer.from(hashed[3].bytes!).equals(contents[3])).toBe(true);
      expect(hashed[1].file).toBe(files[1].file);
    }
  });

  it('hashFiles: small files keep their bytes only up to the budget (what one manifest can carry inline)', async () => {
    const files = Array.from({ length: 10 }, (_, i) => ({ path: `f${i}`, file: new File([randomBytes(1000)], `f${i}`) }));
    const hashed = await hashFiles(files, () => undefined, { keepBytes: 3500 });
    expect(hashed.filter((f) => f.bytes !== undefined)).toHaveLength(3);
    expect(hashed.every((f) => f.sha256.length === 64 && f.size === 1000)).toBe(true);
  });

  it('mapLimit: never more than `limit` at once, results in input order', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, n));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });

  it('bytesToBase64: the same text with the engine’s encoder or the chunked fallback, across a chunk boundary', () => {
    for (const bytes of [new Uint8Array(0), randomBytes(1), randomBytes(2), randomBytes(0x8000), randomBytes(0x8000 * 2 + 3)]) {
      expect(bytesToBase64(buffer(bytes))).toBe(Buffer.from(bytes).toString('base64'));
      expect(bytesToBase64(buffer(bytes), false)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});
