import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';

import { RangeNotSatisfiableError, type StorageProvider } from '../../src/storage/storage.provider';

export interface StorageContractSubject {
  /** An empty store, used by one test. */
  store: StorageProvider;
  /** A driver of the same kind whose backing store is unusable (missing bucket, unwritable directory). */
  unusable(): StorageProvider | Promise<StorageProvider>;
  cleanup?(): Promise<void>;
}

/** Called before each test: a fresh, empty store. */
export type StorageContractFactory = () => Promise<StorageContractSubject>;

/** 5 MiB and a bit: crosses the 5 MiB part size of multipart uploads. */
export const LARGE_SIZE = 5 * 1024 * 1024 + 4099;

/** Deterministic, incompressible bytes (a SHA-256 chain), so a shifted or repeated chunk shows. */
export function knownBytes(size: number, seed = 'storage-contract'): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let offset = 0; offset < size; offset += block.length) {
    block.copy(out, offset);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

/** `data` as a stream of `chunkSize` chunks (never as one buffer). */
export function chunked(data: Buffer, chunkSize = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(Buffer.from(data.subarray(offset, offset + chunkSize)));
      offset += chunkSize;
    },
  });
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A stream that sends `before` and then fails. */
export function failingAfter(before: Buffer, message = 'disk on fire'): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(before);
        return;
      }
      setImmediate(() => this.destroy(new Error(message)));
    },
  });
}

/**
 * What every StorageProvider must do, whatever stores the bytes. Run by
 * test/storage/storage-drivers.e2e-spec.ts against each driver; a new driver gets the
 * same proof by adding one `describeStorageContract` call.
 */
export function describeStorageContract(name: string, factory: StorageContractFactory): void {
  describe(`StorageProvider contract: ${name}`, () => {
    let subject: StorageContractSubject;
    let store: StorageProvider;

    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });
    afterEach(async () => {
      await subject?.cleanup?.();
    });

    it('stores a buffer and reads it back whole', async () => {
      await store.put('ab/cdef', Buffer.from('hello world'));
      const obj = await store.get('ab/cdef');
      expect(obj?.size).toBe(11);
      expect(obj?.contentLength).toBe(11);
      expect(obj?.range).toBeUndefined();
      expect(await text(obj!.stream)).toBe('hello world');
      expect(await store.head('ab/cdef')).toEqual({ size: 11 });
      expect(await store.exists('ab/cdef')).toBe(true);
    });

    it('stores an empty object', async () => {
      await store.put('e/0', Buffer.alloc(0));
      const obj = await store.get('e/0');
      expect(obj?.size).toBe(0);
      expect((await buffer(obj!.stream)).length).toBe(0);
      expect(await store.head('e/0')).toEqual({ size: 0 });
    });

    it('stores a stream of unknown size', async () => {
      await store.put('s/1', Readable.from([Buffer.from('one '), Buffer.from('two')]));
      expect(await text((await store.get('s/1'))!.stream)).toBe('one two');
    });

    it('stores a stream of announced size', async () => {
      await store.put('s/2', Readable.from([Buffer.from('one '), Buffer.from('two')]), 7);
      const obj = await store.get('s/2');
      expect(obj?.size).toBe(7);
      expect(await text(obj!.stream)).toBe('one two');
    });

    it.each([
      ['announced', true],
      ['unknown', false],
    ])('round-trips a 5 MB stream of %s size byte for byte', async (_label, announce) => {
      const data = knownBytes(LARGE_SIZE, `large-${announce}`);
      await store.put('big/1', chunked(data), announce ? data.length : undefined);
      expect(await store.head('big/1')).toEqual({ size: data.length });
      const obj = await store.get('big/1');
      expect(obj?.size).toBe(data.length);
      expect(obj?.contentLength).toBe(data.length);
      const back = await buffer(obj!.stream);
      expect(back.length).toBe(data.length);
      expect(sha256(back)).toBe(sha256(data));

      // A range deep inside the large object, across the 5 MiB mark.
      const start = 5 * 1024 * 1024 - 10;
      const part = await store.get('big/1', { start, end: start + 99 });
      expect(part?.contentLength).toBe(100);
      expect((await buffer(part!.stream)).equals(data.subarray(start, start + 100))).toBe(true);
    });

    it('reads an inclusive byte range and clamps its end', async () => {
      await store.put('r/1', Buffer.from('0123456789'));
      const part = await store.get('r/1', { start: 2, end: 5 });
      expect(part?.range).toEqual({ start: 2, end: 5 });
      expect(part?.size).toBe(10);
      expect(part?.contentLength).toBe(4);
      expect(await text(part!.stream)).toBe('2345');

      const tail = await store.get('r/1', { start: 7, end: 100 });
      expect(tail?.range).toEqual({ start: 7, end: 9 });
      expect(tail?.size).toBe(10);
      expect(tail?.contentLength).toBe(3);
      expect(await text(tail!.stream)).toBe('789');

      const one = await store.get('r/1', { start: 9, end: 9 });
      expect(one?.contentLength).toBe(1);
      expect(await text(one!.stream)).toBe('9');

      const whole = await store.get('r/1', { start: 0, end: 9 });
      expect(whole?.range).toEqual({ start: 0, end: 9 });
      expect(await text(whole!.stream)).toBe('0123456789');
    });

    it('refuses a range that starts at or past the end, with the object size', async () => {
      await store.put('r/2', Buffer.from('abc'));
      for (const range of [
        { start: 3, end: 5 },
        { start: 4, end: 4 },
        { start: 1000, end: 2000 },
        { start: 2, end: 1 },
      ]) {
        const err = await store.get('r/2', range).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(RangeNotSatisfiableError);
        expect((err as RangeNotSatisfiableError).size).toBe(3);
      }
      await store.put('r/3', Buffer.alloc(0));
      await expect(store.get('r/3', { start: 0, end: 0 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    });

    it('answers undefined for a missing key, with or without a range', async () => {
      expect(await store.get('missing/key')).toBeUndefined();
      expect(await store.get('missing/key', { start: 0, end: 10 })).toBeUndefined();
      expect(await store.head('missing/key')).toBeUndefined();
      expect(await store.exists('missing/key')).toBe(false);
    });

    it('deletes idempotently', async () => {
      await store.delete('never/existed');
      await store.put('d/1', Buffer.from('x'));
      expect(await store.exists('d/1')).toBe(true);
      await store.delete('d/1');
      await store.delete('d/1');
      expect(await store.exists('d/1')).toBe(false);
      expect(await store.get('d/1')).toBeUndefined();
    });

    it('overwrites an object', async () => {
      await store.put('o/1', Buffer.from('first version'));
      await store.put('o/1', Buffer.from('second'));
      const obj = await store.get('o/1');
      expect(obj?.size).toBe(6);
      expect(await text(obj!.stream)).toBe('second');
      await store.put('o/1', Readable.from([Buffer.from('third')]));
      expect(await text((await store.get('o/1'))!.stream)).toBe('third');
    });

    it('keeps keys apart', async () => {
      await store.put('k/a', Buffer.from('a'));
      await store.put('k/b', Buffer.from('bb'));
      expect(await text((await store.get('k/a'))!.stream)).toBe('a');
      expect(await text((await store.get('k/b'))!.stream)).toBe('bb');
      await store.delete('k/a');
      expect(await store.exists('k/b')).toBe(true);
    });

    it('survives concurrent writes of the same content to one key (deduplicated deploys)', async () => {
      const data = knownBytes(300 * 1024, 'concurrent');
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.put('c/1', i % 2 ? chunked(data, 16 * 1024) : data)));
      const back = await buffer((await store.get('c/1'))!.stream);
      expect(sha256(back)).toBe(sha256(data));
    });

    it('rejects a put whose source stream fails and leaves no object', async () => {
      await expect(store.put('f/1', failingAfter(Buffer.from('partial')))).rejects.toThrow('disk on fire');
      expect(await store.exists('f/1')).toBe(false);
      await expect(store.put('f/2', failingAfter(Buffer.from('partial')), 1000)).rejects.toThrow('disk on fire');
      expect(await store.exists('f/2')).toBe(false);
    });

    it('rejects keys that are not storage keys, for every operation', async () => {
      for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', 'A/B', '', 'a\\b', 'a\0b', 'sp ace', '.hidden']) {
        await expect(store.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
        await expect(store.get(key)).rejects.toThrow('Invalid storage key');
        await expect(store.head(key)).rejects.toThrow('Invalid storage key');
        await expect(store.delete(key)).rejects.toThrow('Invalid storage key');
      }
    });

    it('passes check() when usable and fails it when not', async () => {
      await expect(store.check()).resolves.toBeUndefined();
      const broken = await subject.unusable();
      await expect(broken.check()).rejects.toThrow();
    });
  });
}
