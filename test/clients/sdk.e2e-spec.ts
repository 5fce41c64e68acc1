import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';

import { StatichostApiError, StatichostClient, StatichostConnectionError } from '../../packages/sdk';
import { documentText } from '../../scripts/openapi/document-text';
import { startTestApp, type TestApp } from '../helpers/app';
import { createApiToken, registerUser } from '../helpers/identity';
import { freePort } from '../helpers/ports';
import { site } from '../helpers/sites';
import { typedUsage } from './fixtures/sdk-usage';

const root = join(__dirname, '..', '..');

/** The types `npm run sdk:generate` would write for `document`, made in a child process (nothing is written). */
async function generateTypes(document: object): Promise<string> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'scripts/openapi/types-from-stdin.ts'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify(document));
  const [out, code] = await Promise.all([text(child.stdout), new Promise((resolve) => child.on('close', resolve))]);
  if (code !== 0) throw new Error(`type generation exited with ${code}`);
  return out;
}

/** The SDK: types generated from the running service's own document, and used against it. */
describe('TypeScript SDK (e2e)', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    // Room for every project and deploy these tests make (the free plan allows 3 and 10).
    t = await startTestApp({ env: { PLANS_JSON: JSON.stringify({ free: { projects: 50, deploymentsPerMonth: 500 } }) } });
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(() => t.close());

  it('has committed types and document identical to what the running service generates (else run npm run sdk:generate)', async () => {
    const document = (await t.http().get('/docs/openapi.json').expect(200)).body;
    expect(await readFile(join(root, 'packages/sdk/generated/openapi.json'), 'utf8')).toBe(documentText(document));
    // toBe on the whole text: a difference shows as a diff of the generated file.
    expect(await readFile(join(root, 'packages/sdk/generated/schema.ts'), 'utf8')).toBe(await generateTypes(document));
  });

  it('type-checks typed usage of every operation with strict and refuses wrong usage (tsc on fixtures with @ts-expect-error)', async () => {
    const result = await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(__dirname, 'fixtures/tsconfig.json')],
      { cwd: root },
    ).then(
      () => ({ code: 0, out: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
    );
    expect(result).toEqual({ code: 0, out: '' });
  });

  it('has every operation of the document in the strict typed program (fixtures/sdk-operations.ts)', async () => {
    const document = (await t.http().get('/docs/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const program = await readFile(join(__dirname, 'fixtures/sdk-operations.ts'), 'utf8');
    const used = new Set([...program.matchAll(/api\.(GET|POST|PUT|PATCH|DELETE)\('([^']+)'/g)].map((m) => `${m[1]} ${m[2]}`));
    expect(operations.filter((op) => !used.has(op))).toEqual([]);
    expect(operations.length).toBeGreaterThan(40);
  });

  it('runs the typed calls against the service', async () => {
    const client = new StatichostClient({ baseUrl: t.baseUrl, token });
    const result = await typedUsage(client);
    expect(result.scopes).toEqual(['deploy', 'read']);
    expect(result.url).toBe(`http://sdk-typed.localhost:${t.port}`);
    expect((await site(t, 'sdk-typed').get('/').expect(200)).text).toBe('<h1>typed</h1>');
  });

  it('streams a blob with uploadBlob, and a repeat (answered before the body is read) still resolves', async () => {
    const client = new StatichostClient({ baseUrl: t.baseUrl, token });
    const bytes = randomBytes(6 * 1024 * 1024);
    const hash = createHash('sha256').update(bytes).digest('hex');
    let counted = 0;
    const first = await client.uploadBlob(
      hash,
      () => Readable.from([bytes.subarray(0, 1e6), bytes.subarray(1e6)]),
      bytes.length,
      (n) => (counted += n),
    );
    expect(first).toEqual({ sha256: hash, size: bytes.length, created: true });
    expect(counted).toBe(bytes.length);
    const again = await client.uploadBlob(hash, () => Readable.from([bytes]), bytes.length);
    expect(again).toEqual({ sha256: hash, size: bytes.length, created: false });
    const wrong = await client.uploadBlob(createHash('sha256').update('other').digest('hex'), Buffer.from('not other'), 9).catch((e) => e);
    expect(wrong).toMatchObject({ status: 400, code: 'sha256_mismatch' });
  });

  it('throws the API’s status, code and message, and names an unreachable service', async () => {
    const client = new StatichostClient({ baseUrl: t.baseUrl, token });
    const err = await client
      .call(client.api.POST('/v1/deployments', { body: { project_slug: 'Bad Slug', files: [{ path: 'a', content: 'a' }] } }))
      .catch((e) => e);
    expect(err).toBeInstanceOf(StatichostApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_slug' });
    expect(err.message).toContain('project_slug');

    const anonymous = new StatichostClient({ baseUrl: t.baseUrl, token: 'sk_live_nope' });
    await expect(anonymous.call(anonymous.api.GET('/v1/me'))).rejects.toMatchObject({ status: 401, message: 'Missing or invalid credentials' });

    const port = await freePort();
    const nowhere = new StatichostClient({ baseUrl: `http://127.0.0.1:${port}`, token });
    const down = await nowhere.call(nowhere.api.GET('/v1/me')).catch((e) => e);
    expect(down).toBeInstanceOf(StatichostConnectionError);
    expect(down.message).toBe(`Could not reach http://127.0.0.1:${port}: ECONNREFUSED`);
  });
});
