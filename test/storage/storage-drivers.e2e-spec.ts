import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { inspect } from 'node:util';

import { CreateBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

import { AppConfig } from '../../src/config/app-config';
import { validateEnv } from '../../src/config/env.schema';
import { LocalStorageDriver } from '../../src/storage/local-storage.driver';
import { S3StorageDriver, type S3StorageOptions } from '../../src/storage/s3-storage.driver';
import { createStorageProvider } from '../../src/storage/storage.module';
import { type S3TestServer, startS3Server } from '../helpers/s3';
import { chunked, describeStorageContract, knownBytes, sha256 } from './storage-contract';

describeStorageContract('local disk', async () => {
  const root = await mkdtemp(join(tmpdir(), 'statichost-test-storage-'));
  return {
    store: new LocalStorageDriver(join(root, 'objects')),
    async unusable() {
      // A directory that cannot be created: its parent is a regular file (fails even as root).
      await writeFile(join(root, 'not-a-dir'), 'x');
      return new LocalStorageDriver(join(root, 'not-a-dir', 'objects'));
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

describe('S3 storage (against s3rver)', () => {
  let s3: S3TestServer;
  let counter = 0;
  const drivers: S3StorageDriver[] = [];

  function driver(overrides: Partial<S3StorageOptions> = {}): S3StorageDriver {
    const d = new S3StorageDriver({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
      ...overrides,
    });
    drivers.push(d);
    return d;
  }

  function rawClient(): S3Client {
    return new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    for (const d of drivers) d.onApplicationShutdown();
    await s3?.stop();
  });

  // Each contract test gets its own key prefix in the shared bucket: an empty store, and the
  // prefix is exercised by every operation.
  describeStorageContract('s3', async () => ({
    store: driver({ keyPrefix: `contract-${++counter}/` }),
    unusable: () => driver({ bucket: 'no-such-bucket' }),
  }));

  describe('S3-specific behaviour', () => {
    it('stores keys under the prefix, or at the bucket root without one', async () => {
      const client = rawClient();
      try {
        await driver({ keyPrefix: '/tenant-a/' }).put('ab/cd', Buffer.from('A'));
        await driver().put('ab/cd', Buffer.from('root'));
        expect((await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'tenant-a/ab/cd' }))).ContentLength).toBe(1);
        expect((await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'ab/cd' }))).ContentLength).toBe(4);
        expect(await driver({ keyPrefix: 'tenant-b' }).get('ab/cd')).toBeUndefined();
        expect(await text((await driver({ keyPrefix: 'tenant-a' }).get('ab/cd'))!.stream)).toBe('A');
      } finally {
        client.destroy();
      }
    });

    it('refuses an invalid key prefix', () => {
      expect(() => driver({ keyPrefix: '../up' })).toThrow('Invalid storage key');
      expect(() => driver({ keyPrefix: 'a//b' })).toThrow('Invalid storage key');
    });

    it('stores the exact bytes, with no aws-chunked framing (checksums only WHEN_REQUIRED)', async () => {
      // What a client with the SDK's default checksum settings would break: a streamed body
      // must reach the bucket verbatim, as seen by a plain client.
      const data = knownBytes(256 * 1024 + 3, 'framing');
      await driver().put('framing/1', chunked(data, 10_000), data.length);
      await driver().put('framing/2', chunked(data, 10_000));
      const client = rawClient();
      try {
        for (const key of ['framing/1', 'framing/2']) {
          expect((await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ContentLength).toBe(data.length);
        }
      } finally {
        client.destroy();
      }
      for (const key of ['framing/1', 'framing/2']) {
        expect(sha256(await buffer((await driver().get(key))!.stream))).toBe(sha256(data));
      }
    });

    it('round-trips a 12 MB stream of unknown size (a three-part multipart upload)', async () => {
      const data = knownBytes(12 * 1024 * 1024 + 1, 'multipart');
      const store = driver({ keyPrefix: 'multipart' });
      await store.put('mp/1', chunked(data, 256 * 1024));
      const obj = await store.get('mp/1');
      expect(obj?.size).toBe(data.length);
      expect(sha256(await buffer(obj!.stream))).toBe(sha256(data));
    });

    it('rejects a stream that does not hold the announced size, and stores nothing', async () => {
      const store = driver({ keyPrefix: 'mismatch' });
      await expect(store.put('m/short', Readable.from([Buffer.from('abc')]), 10)).rejects.toThrow('only 3 of the 10 bytes');
      await expect(store.put('m/long', Readable.from([Buffer.from('abcdef')]), 4)).rejects.toThrow('more than the 4 bytes');
      await expect(store.put('m/buf', Buffer.from('abc'), 4)).rejects.toThrow('3 bytes, not the 4');
      for (const key of ['m/short', 'm/long', 'm/buf']) expect(await store.exists(key)).toBe(false);
    });

    it('never takes a missing bucket for a missing object on get, put or delete', async () => {
      const store = driver({ bucket: 'no-such-bucket' });
      await expect(store.get('ab/cd')).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(store.get('ab/cd', { start: 0, end: 1 })).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(store.put('ab/cd', Buffer.from('x'))).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(store.put('ab/cd', Readable.from([Buffer.from('xyz')]), 3)).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(store.put('ab/cd', Readable.from([Buffer.from('xyz')]))).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(store.delete('ab/cd')).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(store.check()).rejects.toThrow('S3 bucket "no-such-bucket" is not reachable (HTTP 404)');
    });

    it('fails check() and operations with unknown credentials, without echoing the secret', async () => {
      // s3rver checks the access key id but not SigV4 signatures, so it is the key id that is wrong here.
      const wrongSecret = `wrong-secret-${'x'.repeat(27)}`;
      const store = driver({ accessKeyId: 'AKIAUNKNOWNKEY000000', secretAccessKey: wrongSecret });
      const checkErr = await store.check().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(checkErr?.message).toContain('HTTP 403');
      const getErr = await store.get('ab/cd').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(getErr).toMatchObject({ name: 'InvalidAccessKeyId' });
      await expect(store.put('ab/cd', Buffer.from('x'))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
      for (const err of [checkErr, getErr]) {
        const shown = `${inspect(err, { depth: 10 })} ${JSON.stringify(err)} ${String(err)}`;
        expect(shown).not.toContain(wrongSecret);
      }
    });

    it('does not expose the secret when the driver is logged or serialised', () => {
      const store = driver();
      const shown = `${inspect(store, { depth: 10, showHidden: true })} ${JSON.stringify(Object.keys(store))}`;
      expect(shown).not.toContain(s3.secretAccessKey);
    });

    it('fails check() quickly when the store is down', async () => {
      const other = await startS3Server();
      const store = driver({ endpoint: other.endpoint, bucket: other.bucket, accessKeyId: other.accessKeyId, secretAccessKey: other.secretAccessKey });
      await expect(store.check()).resolves.toBeUndefined();
      await other.stop();
      const started = Date.now();
      await expect(store.check()).rejects.toThrow(`S3 bucket "${other.bucket}" is not reachable`);
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('is what createStorageProvider builds for STORAGE_DRIVER=s3, prefix included', async () => {
      const config = AppConfig.from(validateEnv({ ...s3.env, S3_KEY_PREFIX: 'from-config/' }));
      const store = createStorageProvider(config);
      expect(store).toBeInstanceOf(S3StorageDriver);
      expect(store.name).toBe('s3');
      drivers.push(store as S3StorageDriver);
      await store.check();
      await store.put('cfg/1', Buffer.from('configured'));
      expect(await text((await driver({ keyPrefix: 'from-config' }).get('cfg/1'))!.stream)).toBe('configured');
      expect(() => validateEnv({ ...s3.env, S3_KEY_PREFIX: '../x' })).toThrow('S3_KEY_PREFIX');
    });
  });

  describe('the s3rver test harness', () => {
    it('pages ListObjectsV2 (s3rver needs the OpenSSL legacy provider for its continuation tokens)', async () => {
      const client = rawClient();
      try {
        for (const k of ['list/a', 'list/b', 'list/c']) {
          await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: k, Body: Buffer.from(k) }));
        }
        const seen: string[] = [];
        let token: string | undefined;
        do {
          const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'list/', MaxKeys: 1, ContinuationToken: token }));
          seen.push(...(page.Contents ?? []).map((o) => o.Key!));
          token = page.NextContinuationToken;
        } while (token);
        expect(seen).toEqual(['list/a', 'list/b', 'list/c']);
      } finally {
        client.destroy();
      }
    });

    it('creates extra buckets, and removes its directory and process on stop()', async () => {
      const other = await startS3Server({ buckets: ['second'] });
      const store = driver({ endpoint: other.endpoint, bucket: 'second', accessKeyId: other.accessKeyId, secretAccessKey: other.secretAccessKey });
      await store.put('x/1', Buffer.from('x'));
      const client = new S3Client({
        endpoint: other.endpoint,
        region: other.region,
        forcePathStyle: true,
        credentials: { accessKeyId: other.accessKeyId, secretAccessKey: other.secretAccessKey },
      });
      try {
        await client.send(new CreateBucketCommand({ Bucket: 'third' }));
      } finally {
        client.destroy();
      }
      expect(existsSync(join(other.directory, 'third'))).toBe(true);
      await other.stop();
      await other.stop();
      expect(existsSync(other.directory)).toBe(false);
      await expect(store.check()).rejects.toThrow();
    });
  });
});
