import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';

import { LocalStorageDriver } from './local-storage.driver';
import { RangeNotSatisfiableError } from './storage.provider';

describe('LocalStorageDriver', () => {
  let root: string;
  let store: LocalStorageDriver;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'storage-'));
    store = new LocalStorageDriver(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('stores a buffer and reads it back whole', async () => {
    await store.put('ab/cdef', Buffer.from('hello world'));
    const obj = await store.get('ab/cdef');
    expect(obj?.size).toBe(11);
    expect(obj?.contentLength).toBe(11);
    expect(await text(obj!.stream)).toBe('hello world');
  });

  it('stores a stream', async () => {
    await store.put('s/1', Readable.from([Buffer.from('one '), Buffer.from('two')]));
    expect(await text((await store.get('s/1'))!.stream)).toBe('one two');
  });

  it('reads an inclusive byte range and clamps its end', async () => {
    await store.put('r/1', Buffer.from('0123456789'));
    const part = await store.get('r/1', { start: 2, end: 5 });
    expect(part?.range).toEqual({ start: 2, end: 5 });
    expect(part?.contentLength).toBe(4);
    expect(await text(part!.stream)).toBe('2345');
    const tail = await store.get('r/1', { start: 7, end: 100 });
    expect(await text(tail!.stream)).toBe('789');
  });

  it('refuses a range that starts past the end', async () => {
    await store.put('r/2', Buffer.from('abc'));
    await expect(store.get('r/2', { start: 3, end: 5 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
  });

  it('answers undefined for a missing key and deletes idempotently', async () => {
    expect(await store.get('missing/key')).toBeUndefined();
    expect(await store.head('missing/key')).toBeUndefined();
    expect(await store.exists('missing/key')).toBe(false);
    await store.put('d/1', Buffer.from('x'));
    expect(await store.exists('d/1')).toBe(true);
    await store.delete('d/1');
    await store.delete('d/1');
    expect(await store.exists('d/1')).toBe(false);
  });

  it('overwrites atomically and leaves no temp files behind', async () => {
    await store.put('o/1', Buffer.from('first'));
    await store.put('o/1', Buffer.from('second'));
    expect(await text((await store.get('o/1'))!.stream)).toBe('second');
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
  });

  it('removes the temp file when the source stream fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk on fire'));
      },
    });
    await expect(store.put('f/1', failing)).rejects.toThrow('disk on fire');
    expect(await store.exists('f/1')).toBe(false);
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
  });

  it('rejects keys that could escape its directory', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', 'A/B', '']) {
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
    }
  });
});
