import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';

import { BlobCollector } from '../../src/blobs/blob-collector.service';
import { blobKey } from '../../src/blobs/blob-keys';
import { BlobStore } from '../../src/blobs/blob-store.service';
import { Clock } from '../../src/common/time';
import { StorageProvider } from '../../src/storage/storage.provider';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import { site } from '../helpers/sites';

type Session = Awaited<ReturnType<typeof registerUser>>;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const HOUR = 60 * 60 * 1000;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** The free plan's largest file, below the platform's MAX_FILE_BYTES: uploads follow the plan. */
const PLAN_MAX_FILE_BYTES = 3.5 * 1024 * 1024;

/**
 * Large deploys, digest first: upload each file's bytes once with
 * PUT /v1/blobs/:sha256, then deploy a manifest of {path, sha256, size}.
 */
describe('Digest-first deploys (e2e)', () => {
  let t: TestApp;
  let alice: Session;
  let bob: Session;
  let aliceToken: string;
  let bobToken: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        MAX_FILE_BYTES: String(MAX_FILE_BYTES),
        PLANS_JSON: JSON.stringify({ free: { maxFileBytes: PLAN_MAX_FILE_BYTES, projects: 100, deploymentsPerMonth: 1000, maxTtl: null } }),
      },
    });
    alice = await registerUser(t);
    bob = await registerUser(t);
    aliceToken = (await createApiToken(t, alice, { scopes: ['deploy', 'read'] })).token;
    bobToken = (await createApiToken(t, bob, { scopes: ['deploy', 'read'] })).token;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  const put = (hash: string, body: Buffer, token = aliceToken) =>
    t.http().put(`/v1/blobs/${hash}`).set(bearer(token)).set('Content-Type', 'application/octet-stream').send(body);
  const upload = async (body: Buffer, token = aliceToken) => {
    const res = await put(sha(body), body, token);
    if (res.status !== 201 && res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
    return { sha256: sha(body), size: body.length };
  };
  const deploy = (body: object, token = aliceToken) => t.http().post('/v1/deployments').set(bearer(token)).send(body);
  const blobRow = async (hash: string) => (await t.dataSource.query('SELECT * FROM blobs WHERE sha256 = $1', [hash]))[0];
  const owners = async (hash: string) =>
    (await t.dataSource.query('SELECT workspace_id FROM workspace_blobs WHERE sha256 = $1 ORDER BY workspace_id', [hash])).map(
      (r: { workspace_id: string }) => r.workspace_id,
    );

  /**
   * A PUT over plain HTTP, the body sent in chunks (with no Content-Length unless
   * `declared` is given). The server may answer before reading the whole body and
   * close the connection, as it does for a body over the limit: the client's failed
   * writes after that answer are expected and ignored, and writing stops.
   */
  function chunkedPut(hash: string, chunks: Buffer[], declared?: number): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${t.baseUrl}/v1/blobs/${hash}`, {
        method: 'PUT',
        headers: {
          ...bearer(aliceToken),
          'Content-Type': 'application/octet-stream',
          ...(declared === undefined ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(declared) }),
        },
      });
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      const expected = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);
      req.on('error', (err) => (expected.has((err as NodeJS.ErrnoException).code ?? '') ? undefined : reject(err)));
      const send = (i: number): void => {
        if (answered || req.destroyed) return;
        if (i === chunks.length) {
          req.end();
          return;
        }
        if (req.write(chunks[i])) setImmediate(() => send(i + 1));
        else req.once('drain', () => send(i + 1));
      };
      send(0);
    });
  }

  describe('PUT /v1/blobs/:sha256', () => {
    it('stores raw bytes under their hash (201), records the workspace as owner, and answers 200 the next time without reading', async () => {
      const bytes = randomBytes(3000);
      const first = await put(sha(bytes), bytes).expect(201);
      expect(first.body).toEqual({ sha256: sha(bytes), size: 3000 });
      expect(await blobRow(sha(bytes))).toMatchObject({ stored: true, size: '3000' });
      expect(await owners(sha(bytes))).toEqual([alice.workspaceId]);
      const stored = await t.app.get(StorageProvider).get(blobKey(sha(bytes)));
      expect(stored?.size).toBe(3000);
      stored?.stream.destroy();

      // The body is not even looked at: bytes that do not match are not noticed.
      const again = await put(sha(bytes), Buffer.from('not read')).expect(200);
      expect(again.body).toEqual({ sha256: sha(bytes), size: 3000 });
    });

    it('refuses bytes that do not match the hash (400) and stores nothing', async () => {
      const claimed = sha('what the client meant');
      const res = await put(claimed, Buffer.from('what it sent')).expect(400);
      expect(res.body).toMatchObject({ code: 'sha256_mismatch', expected: claimed, actual: sha('what it sent'), size: 12 });
      expect(res.body.message).toContain(claimed);
      expect(await blobRow(claimed)).toBeUndefined();
      expect(await blobRow(sha('what it sent'))).toBeUndefined();
    });

    it('streams a large upload through a spool file and serves exactly those bytes once deployed', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
      expect(await chunkedPut(sha(bytes), chunks)).toMatchObject({ status: 201, body: { sha256: sha(bytes), size: bytes.length } });
      await deploy({ project_slug: 'big-file', files: [{ path: 'big.bin', sha256: sha(bytes), size: bytes.length }] }).expect(201);
      const served = await site(t, 'big-file')
        .get('/big.bin')
        .buffer(true)
        .parse((res, cb) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => cb(null, Buffer.concat(parts)));
        });
      expect(served.status).toBe(200);
      expect(sha(served.body as Buffer)).toBe(sha(bytes));
    });

    it('answers 413 for a body over the plan’s largest file, declared or streamed, and stores nothing', async () => {
      const big = Buffer.alloc(PLAN_MAX_FILE_BYTES + 1, 1);
      const parts = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
      const declared = await chunkedPut(sha(big), parts, big.length);
      expect(declared.status).toBe(413);
      expect(declared.body).toMatchObject({ code: 'payload_too_large', limit: PLAN_MAX_FILE_BYTES, size: PLAN_MAX_FILE_BYTES + 1 });
      expect(declared.body.message).toContain('the largest file allowed is 3.5 MB');
      const chunks = Array.from({ length: 4 }, () => Buffer.alloc(1024 * 1024, 2));
      const streamed = await chunkedPut(sha(Buffer.concat(chunks)), chunks);
      expect(streamed).toMatchObject({ status: 413, body: { code: 'payload_too_large', limit: PLAN_MAX_FILE_BYTES } });
      expect(await blobRow(sha(big))).toBeUndefined();
      expect(await blobRow(sha(Buffer.concat(chunks)))).toBeUndefined();
    });

    it('accepts an empty file', async () => {
      await put(sha(''), Buffer.alloc(0)).expect(201);
      expect(await blobRow(sha(''))).toMatchObject({ stored: true, size: '0' });
    });

    it('refuses a path that is not a SHA-256 (400) and a JSON body (415)', async () => {
      const bad = await put('abc123', Buffer.from('x')).expect(400);
      expect(bad.body).toMatchObject({ code: 'invalid_sha256' });
      expect(bad.body.message).toContain('"abc123"');
      const json = await t
        .http()
        .put(`/v1/blobs/${sha('{}')}`)
        .set(bearer(aliceToken))
        .send({ a: 1 })
        .expect(415);
      expect(json.body.message).toContain('application/octet-stream');
    });

    it('accepts an uppercase hash as the same blob', async () => {
      const bytes = Buffer.from('upper case hash');
      const res = await put(sha(bytes).toUpperCase(), bytes).expect(201);
      expect(res.body.sha256).toBe(sha(bytes));
    });

    it('needs the deploy scope: an API token with it, or a member whose role grants it (the dashboard)', async () => {
      const bytes = Buffer.from('auth');
      await t
        .http()
        .put(`/v1/blobs/${sha(bytes)}`)
        .set('Content-Type', 'application/octet-stream')
        .send(bytes)
        .expect(401);
      const read = await createApiToken(t, alice, { scopes: ['read'] });
      expect((await put(sha(bytes), bytes, read.token).expect(403)).body.code).toBe('insufficient_scope');
      const viewer = await registerUser(t);
      await addMember(t, alice, viewer, 'viewer');
      const asViewer = await t
        .http()
        .put(`/v1/blobs/${sha(bytes)}`)
        .set(asUser(viewer, alice.workspaceId))
        .set('Content-Type', 'application/octet-stream')
        .send(bytes)
        .expect(403);
      expect(asViewer.body.code).toBe('insufficient_scope');
      expect(await blobRow(sha(bytes))).toBeUndefined();
      await t
        .http()
        .put(`/v1/blobs/${sha(bytes)}`)
        .set(asUser(alice))
        .set('Content-Type', 'application/octet-stream')
        .send(bytes)
        .expect(201);
      expect(await blobRow(sha(bytes))).toBeDefined();
    });

    it('verifies bytes another workspace stored, records the new owner, and writes nothing again', async () => {
      const bytes = Buffer.from('shared by two workspaces');
      await upload(bytes, aliceToken);
      const put = jest.spyOn(t.app.get(StorageProvider), 'put');
      // Bob must send the bytes (knowing the hash is not enough) ...
      expect(
        (
          await t
            .http()
            .put(`/v1/blobs/${sha(bytes)}`)
            .set(bearer(bobToken))
            .set('Content-Type', 'application/octet-stream')
            .send(Buffer.from('guess'))
            .expect(400)
        ).body.code,
      ).toBe('sha256_mismatch');
      expect(await owners(sha(bytes))).toEqual([alice.workspaceId]);
      // ... and then owns it too, without a second copy being written.
      await upload(bytes, bobToken);
      expect(put).not.toHaveBeenCalled();
      expect((await owners(sha(bytes))).sort()).toEqual([alice.workspaceId, bob.workspaceId].sort());
    });
  });

  describe('deploying {path, sha256, size} entries', () => {
    it('deploys uploaded blobs beside inline files, and the site serves both', async () => {
      const page = await upload(Buffer.from('<h1>uploaded</h1>'));
      const res = await deploy({
        project_slug: 'digest-site',
        files: [
          { path: 'index.html', ...page },
          { path: 'inline.txt', content: 'inline' },
        ],
      }).expect(201);
      expect(res.body.size_bytes).toBe(page.size + 6);
      expect((await site(t, 'digest-site').get('/').expect(200)).text).toBe('<h1>uploaded</h1>');
      expect((await site(t, 'digest-site').get('/inline.txt').expect(200)).text).toBe('inline');
      const [project] = await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', ['digest-site']);
      const detail = await t.http().get(`/projects/${project.id}/deployments/${res.body.id}`).set(asUser(alice)).expect(200);
      expect(detail.body.files).toEqual(
        expect.arrayContaining([{ path: 'index.html', size: page.size, contentType: 'text/html; charset=utf-8', sha256: page.sha256 }]),
      );
    });

    it('works on the per-project route and with a dashboard JWT, within the workspace', async () => {
      const bytes = await upload(Buffer.from('per project'));
      const project = await t.http().post('/projects').set(asUser(alice)).send({ name: 'Per project digest', slug: 'per-project-digest' }).expect(201);
      await t
        .http()
        .post(`/projects/${project.body.id}/deployments`)
        .set(asUser(alice))
        .send({ files: [{ path: 'a.txt', ...bytes }] })
        .expect(201);
      expect((await site(t, 'per-project-digest').get('/a.txt').expect(200)).text).toBe('per project');
    });

    it('refuses hashes the workspace never uploaded (400), listing every one, and deploys nothing', async () => {
      const known = await upload(Buffer.from('known'));
      const unknown = [sha('never uploaded 1'), sha('never uploaded 2')];
      const before = (await t.dataSource.query('SELECT count(*)::int AS n FROM deployments'))[0].n;
      const res = await deploy({
        project_slug: 'missing-blobs',
        files: [
          { path: 'known.txt', ...known },
          { path: 'a.txt', sha256: unknown[0], size: 16 },
          { path: 'b.txt', sha256: unknown[1], size: 16 },
          { path: 'again.txt', sha256: unknown[0], size: 16 },
        ],
      }).expect(400);
      expect(res.body.code).toBe('missing_blobs');
      expect(res.body.missing).toEqual(unknown);
      expect(res.body.message).toContain(unknown[0]);
      expect(res.body.message).toContain('PUT /v1/blobs');
      expect((await t.dataSource.query('SELECT count(*)::int AS n FROM deployments'))[0].n).toBe(before);
      expect((await t.dataSource.query('SELECT 1 FROM projects WHERE slug = $1', ['missing-blobs'])).length).toBe(0);
    });

    it('never lets another workspace’s blob into a site by its hash alone', async () => {
      const secret = await upload(Buffer.from('alice’s private file'), aliceToken);
      const res = await deploy({ project_slug: 'bob-steals', files: [{ path: 'x.txt', ...secret }] }, bobToken).expect(400);
      expect(res.body).toMatchObject({ code: 'missing_blobs', missing: [secret.sha256] });

      // Not even a hash alice deployed inline (it is in her deployment's file list).
      await deploy({ project_slug: 'alice-inline', files: [{ path: 'i.txt', content: 'alice inline' }] }).expect(201);
      const inline = { sha256: sha('alice inline'), size: 12 };
      expect((await deploy({ project_slug: 'bob-steals', files: [{ path: 'x.txt', ...inline }] }, bobToken).expect(400)).body.missing).toEqual([inline.sha256]);
    });

    it('accepts hashes the workspace already deployed inline, with no upload', async () => {
      await deploy({ project_slug: 'inline-first', files: [{ path: 'index.html', content: 'deployed inline once' }] }).expect(201);
      await deploy({ project_slug: 'inline-first', files: [{ path: 'index.html', sha256: sha('deployed inline once'), size: 20 }] }).expect(201);
      expect((await site(t, 'inline-first').get('/').expect(200)).text).toBe('deployed inline once');
    });

    it('refuses a size that does not match the blob (400)', async () => {
      const b = await upload(Buffer.from('twelve bytes'));
      const res = await deploy({ project_slug: 'size-mismatch', files: [{ path: 'a.txt', sha256: b.sha256, size: 13 }] }).expect(400);
      expect(res.body).toMatchObject({ code: 'blob_size_mismatch', sha256: b.sha256, size: 12 });
      expect(res.body.message).toContain('files[0] "a.txt"');
      const inlineToo = await deploy({
        project_slug: 'size-mismatch',
        files: [
          { path: 'a.txt', content: 'twelve bytes' },
          { path: 'b.txt', sha256: b.sha256, size: 11 },
        ],
      }).expect(400);
      expect(inlineToo.body.code).toBe('blob_size_mismatch');
    });

    it('names malformed entries and applies the file size limit to digests (413)', async () => {
      const bad = async (file: object) => (await deploy({ project_slug: 'malformed', files: [{ path: 'ok.txt', content: 'ok' }, file] }).expect(400)).body;
      expect(await bad({ path: 'a' })).toMatchObject({ code: 'invalid_file', message: expect.stringContaining('files[1] needs either content') });
      expect(await bad({ path: 'a', content: 'x', sha256: sha('x'), size: 1 })).toMatchObject({ message: expect.stringContaining('both content and sha256') });
      expect(await bad({ path: 'a', sha256: 'nothex', size: 1 })).toMatchObject({ message: expect.stringContaining('files[1].sha256 must be 64 hexadecimal') });
      expect(await bad({ path: 'a', sha256: sha('x') })).toMatchObject({ message: expect.stringContaining('files[1].size') });
      expect(await bad({ path: 'a', sha256: sha('x'), size: 1, extra: true })).toMatchObject({ message: expect.stringContaining('extra') });
      const huge = await deploy({ project_slug: 'malformed', files: [{ path: 'huge.bin', sha256: sha('x'), size: PLAN_MAX_FILE_BYTES + 1 }] }).expect(413);
      expect(huge.body).toMatchObject({ path: 'huge.bin', size: PLAN_MAX_FILE_BYTES + 1, limit: PLAN_MAX_FILE_BYTES });
    });
  });

  describe('garbage collection of uploads', () => {
    it('keeps an upload no deployment references for the grace period, then deletes it with its ownership rows', async () => {
      const clock = t.app.get(Clock);
      const collector = t.app.get(BlobCollector);
      const grace = t.config.BLOB_GC_GRACE_SECONDS * 1000;
      const bytes = Buffer.from(`uploaded, never deployed ${randomBytes(4).toString('hex')}`);
      const b = await upload(bytes);
      await upload(bytes, bobToken);

      await collector.runOnce();
      expect(await blobRow(b.sha256)).toMatchObject({ stored: true });
      expect(await t.app.get(StorageProvider).exists(blobKey(b.sha256))).toBe(true);

      jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + grace + HOUR));
      expect((await collector.runOnce()).objectsDeleted).toBeGreaterThanOrEqual(1);
      expect(await blobRow(b.sha256)).toBeUndefined();
      expect(await owners(b.sha256)).toEqual([]);
      expect(await t.app.get(StorageProvider).exists(blobKey(b.sha256))).toBe(false);
      // Its hash is unknown again: the client must upload it anew.
      expect((await deploy({ project_slug: 'after-gc', files: [{ path: 'a.txt', ...b }] }).expect(400)).body.missing).toEqual([b.sha256]);
      await upload(bytes);
      await deploy({ project_slug: 'after-gc', files: [{ path: 'a.txt', ...b }] }).expect(201);
    });

    it('takes an upload as proof of the bytes for 24 hours: after that the body is read again and a digest deploy needs a new upload', async () => {
      const clock = t.app.get(Clock);
      const bytes = Buffer.from(`uploaded long ago ${randomBytes(4).toString('hex')}`);
      const b = await upload(bytes);
      // Within the day, a bodiless PUT keeps it (and so it could be kept forever, uncounted, without the limit).
      await put(b.sha256, Buffer.from('not read')).expect(200);
      jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 25 * HOUR));
      expect((await put(b.sha256, Buffer.from('not read')).expect(400)).body.code).toBe('sha256_mismatch');
      expect((await deploy({ project_slug: 'proof-expired', files: [{ path: 'a.txt', ...b }] }).expect(400)).body.missing).toEqual([b.sha256]);
      // Sending the bytes again renews the proof.
      await put(b.sha256, bytes).expect(201);
      await put(b.sha256, Buffer.from('not read')).expect(200);
      await deploy({ project_slug: 'proof-expired', files: [{ path: 'a.txt', ...b }] }).expect(201);
    });

    it('an expired deployment’s bytes make no claim: no bodiless PUT keeps them past the day’s proof, uncounted', async () => {
      const clock = t.app.get(Clock);
      const bytes = Buffer.from(`deployed for an hour ${randomBytes(4).toString('hex')}`);
      const b = await upload(bytes);
      const res = await deploy({ project_slug: 'expired-hoard', files: [{ path: 'a.txt', ...b }], ttl: '1h' }).expect(201);
      await t.dataSource.query(`UPDATE deployments SET status = 'expired' WHERE id = $1`, [res.body.id]);
      // Past the upload's day, only a live or archived deployment would let the bytes go unsent.
      jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 25 * HOUR));
      expect((await put(b.sha256, Buffer.from('not read')).expect(400)).body.code).toBe('sha256_mismatch');
      expect((await deploy({ project_slug: 'expired-hoard', files: [{ path: 'a.txt', ...b }] }).expect(400)).body.missing).toEqual([b.sha256]);
    });

    it('a collection that deletes the object but not its row leaves the row saying the bytes are gone, so the next deploy sends them', async () => {
      const clock = t.app.get(Clock);
      const blobs = t.app.get(BlobStore);
      const grace = t.config.BLOB_GC_GRACE_SECONDS * 1000;
      const bytes = Buffer.from(`collected halfway ${randomBytes(4).toString('hex')}`);
      const b = await upload(bytes);
      jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + grace + 25 * HOUR));
      // The row's delete fails after the object's: the row is marked under the same lock.
      const rows = (blobs as unknown as { rows: { delete: (m: unknown, sha256: string) => Promise<void> } }).rows;
      const remove = rows.delete.bind(rows);
      const failing = jest
        .spyOn(rows, 'delete')
        .mockImplementation((m, sha256) => (sha256 === b.sha256 ? Promise.reject(new Error('connection lost')) : remove(m, sha256)));
      await blobs.collectGarbage(grace);
      failing.mockRestore();
      expect(await t.app.get(StorageProvider).exists(blobKey(b.sha256))).toBe(false);
      expect(await blobRow(b.sha256)).toMatchObject({ stored: false });
      // The bytes are asked for again, and serve once sent.
      await put(b.sha256, bytes).expect(201);
      expect(await blobRow(b.sha256)).toMatchObject({ stored: true });
      expect(await t.app.get(StorageProvider).exists(blobKey(b.sha256))).toBe(true);
    });

    it('keeps a blob deployed by digest after the grace period, with its ownership row', async () => {
      const clock = t.app.get(Clock);
      const blobs = t.app.get(BlobStore);
      const grace = t.config.BLOB_GC_GRACE_SECONDS * 1000;
      const b = await upload(Buffer.from(`deployed by digest ${randomBytes(4).toString('hex')}`));
      await deploy({ project_slug: 'kept-by-deploy', files: [{ path: 'a.txt', ...b }], ttl: 'forever' }).expect(201);
      jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + grace + HOUR));
      await blobs.collectGarbage(grace);
      expect(await blobRow(b.sha256)).toMatchObject({ stored: true });
      expect(await owners(b.sha256)).toEqual([alice.workspaceId]);
    });
  });

  it('documents both deploy paths and the upload in the OpenAPI document', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
    const blobPut = doc.paths['/v1/blobs/{sha256}'].put;
    expect(Object.keys(blobPut.requestBody.content)).toEqual(['application/octet-stream']);
    expect(Object.keys(blobPut.responses).sort()).toEqual(['200', '201', '400', '401', '403', '404', '408', '413', '415', '503']);
    const files = doc.components.schemas.LazyDeployDto.properties.files;
    expect(files.items.oneOf).toEqual([{ $ref: '#/components/schemas/InlineDeployFileDto' }, { $ref: '#/components/schemas/DigestDeployFileDto' }]);
    expect(doc.components.schemas.DigestDeployFileDto.required.sort()).toEqual(['path', 'sha256', 'size']);
    expect(doc.components.schemas.InlineDeployFileDto.required.sort()).toEqual(['content', 'path']);
  });
});
