import { createHash, randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

import { useTempDir } from '../../test/helpers/temp-dir';
import { spoolUpload, UploadTooLargeError } from './upload-spool';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const chunked = (b: Buffer, size: number) => Readable.from(Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size)));
const read = async (x: Buffer | Readable) => (Buffer.isBuffer(x) ? x : buffer(x));

describe('spoolUpload', () => {
  const dir = useTempDir('spool-spec-');

  it('keeps a small upload in memory, hashed', async () => {
    const bytes = Buffer.from('hello');
    const up = await spoolUpload(chunked(bytes, 2), { maxBytes: 100, dir: dir() });
    expect(up).toMatchObject({ sha256: sha(bytes), size: 5 });
    expect(sha(await read(up.open()))).toBe(sha(bytes));
    expect(await readdir(dir())).toEqual([]);
  });

  it('hashes an empty upload', async () => {
    const up = await spoolUpload(Readable.from([]), { maxBytes: 100, dir: dir() });
    expect(up).toMatchObject({ sha256: sha(Buffer.alloc(0)), size: 0 });
  });

  it('spools a large upload to a private file, readable more than once, removed by dispose', async () => {
    const bytes = randomBytes(300_000);
    const up = await spoolUpload(chunked(bytes, 7_000), { maxBytes: 1_000_000, dir: dir(), memoryBytes: 64 * 1024 });
    expect(up).toMatchObject({ sha256: sha(bytes), size: bytes.length });
    expect(sha(await read(up.open()))).toBe(sha(bytes));
    expect(sha(await read(up.open()))).toBe(sha(bytes));
    expect(await readdir(dir())).toHaveLength(1);
    await up.dispose();
    expect(await readdir(dir())).toEqual([]);
  });

  it('accepts exactly the limit and refuses one byte more, leaving no file behind', async () => {
    const limit = 100_000;
    await expect(spoolUpload(chunked(randomBytes(limit), 4096), { maxBytes: limit, dir: dir(), memoryBytes: 1024 })).resolves.toMatchObject({ size: limit });
    await rm(dir(), { recursive: true, force: true });
    const err = await spoolUpload(chunked(randomBytes(limit + 1), 4096), { maxBytes: limit, dir: dir(), memoryBytes: 1024 }).catch((e) => e);
    expect(err).toBeInstanceOf(UploadTooLargeError);
    expect(err.limit).toBe(limit);
    expect(await readdir(dir())).toEqual([]);
  });

  it('removes the spool file when the source fails midway', async () => {
    async function* broken() {
      yield randomBytes(10_000);
      throw new Error('client went away');
    }
    await expect(spoolUpload(broken(), { maxBytes: 1e6, dir: dir(), memoryBytes: 1024 })).rejects.toThrow('client went away');
    expect(await readdir(dir())).toEqual([]);
  });
});
