import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { Clock } from '../../src/common/time';
import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { BIN, runCli } from '../clients/cli-process';
import { NO_FREE_QUOTAS, startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

const HOUR = 3600_000;
const PASSWORD = 'preview password 7';

type Session = Awaited<ReturnType<typeof registerUser>>;

// The client tests start processes (the CLI, the MCP server) on a loaded machine.
jest.setTimeout(60_000);

/**
 * Preview deployments: every deployment's own address `<slug>--<version>.<SITES_DOMAIN>`
 * (previewUrl), served whatever is live, behind the project's gate, never indexed;
 * and deploys with `publish: false` that only a promote makes live.
 */
describe('Preview deployments (e2e)', () => {
  let t: TestApp;
  let alice: Session;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: NO_FREE_QUOTAS } });
    alice = await registerUser(t);
    token = (await createApiToken(t, alice, { scopes: ['deploy', 'read', 'delete', 'admin'] })).token;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  const base = () => `http://localhost:${t.port}`;
  /** The label of a preview URL ("my-site--2" of "http://my-site--2.localhost:1234"). */
  const labelOf = (url: string) => new URL(url).hostname.split('.')[0];
  const projectBySlug = async (slug: string) =>
    (await t.http().get('/projects').query({ limit: 100 }).set(bearer(token)).expect(200)).body.data.find((p: { slug: string }) => p.slug === slug) as {
      id: string;
      slug: string;
    };
  const deployments = async (projectId: string) => (await t.http().get(`/projects/${projectId}/deployments`).set(bearer(token)).expect(200)).body.data;
  const deployTo = (projectId: string, body: object) => t.http().post(`/projects/${projectId}/deployments`).set(bearer(token)).send(body);
  const page = (content: string) => [{ path: 'index.html', content }];

  describe('previewUrl on deployment records', () => {
    it('is on the per-project deploy answer, the list, the detail, promote and archive; the lazy answer keeps exactly its five keys', async () => {
      const lazy = await deploySite(t, token, 'records', page('<h1>v1</h1>'));
      expect(Object.keys(lazy).sort()).toEqual(['expires_at', 'id', 'size_bytes', 'url', 'version']);
      expect(lazy.url).toBe(`http://records.localhost:${t.port}`);
      const project = await projectBySlug('records');

      const created = (await deployTo(project.id, { files: page('<h1>v2</h1>') }).expect(201)).body;
      expect(created).toMatchObject({
        version: 2,
        status: 'live',
        url: `http://records.localhost:${t.port}`,
        previewUrl: `http://records--2.localhost:${t.port}`,
      });

      const list = await deployments(project.id);
      expect(list.map((d: { version: number; previewUrl: string }) => [d.version, d.previewUrl])).toEqual([
        [2, `http://records--2.localhost:${t.port}`],
        [1, `http://records--1.localhost:${t.port}`],
      ]);
      const detail = (await t.http().get(`/projects/${project.id}/deployments/${lazy.id}`).set(bearer(token)).expect(200)).body;
      expect(detail).toMatchObject({ previewUrl: `http://records--1.localhost:${t.port}`, files: [expect.objectContaining({ path: 'index.html' })] });
      const promoted = (await t.http().patch(`/projects/${project.id}/deployments/${lazy.id}/promote`).set(bearer(token)).expect(200)).body;
      expect(promoted.previewUrl).toBe(`http://records--1.localhost:${t.port}`);
      const archived = (await t.http().patch(`/projects/${project.id}/deployments/${created.id}/archive`).set(bearer(token)).expect(200)).body;
      expect(archived.previewUrl).toBe(`http://records--2.localhost:${t.port}`);
    });

    it('takes the short form <37 characters of the slug>--<id> when <slug>--<version> would pass 63 characters, and serves it', async () => {
      const slug = `long-${'x'.repeat(54)}-end`; // 63 characters
      const d = await deploySite(t, token, slug, page('<h1>long</h1>'));
      const [record] = await deployments((await projectBySlug(slug)).id);
      const label = labelOf(record.previewUrl);
      expect(label).toBe(`${slug.slice(0, 37)}--${d.id.slice('dep_'.length)}`);
      expect(label.length).toBeLessThanOrEqual(63);
      const res = await site(t, label).get('/').expect(200);
      expect(res.text).toBe('<h1>long</h1>');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      // The long form is no second address of the same deployment.
      await site(t, `${slug}--1`).get('/').expect(404);
    });

    it('refuses new slugs with "--" anywhere, which would shadow another project\'s preview', async () => {
      const res = await t.http().post('/projects').set(bearer(token)).send({ name: 'x', slug: 'records--3' }).expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_slug', message: expect.stringMatching(/^slug: .*"--" is reserved for preview addresses/) });
      const lazy = await t
        .http()
        .post('/v1/deployments')
        .set(bearer(token))
        .send({ project_slug: 'my-shop--2', files: page('x') })
        .expect(400);
      expect(lazy.body).toMatchObject({ code: 'invalid_slug', message: expect.stringMatching(/^project_slug: /) });
    });
  });

  it("keeps serving a project whose slug, taken under the old rules, has a preview label's shape", async () => {
    const { id } = (await t.http().post('/projects').set(bearer(token)).send({ name: 'legacy', slug: 'legacy-five', type: 'static_file' }).expect(201)).body;
    await t.dataSource.query(`UPDATE projects SET slug = 'legacy--5' WHERE id = $1`, [id]);
    await deploySite(t, token, 'legacy--5', page('<h1>old slug</h1>'));
    const res = await site(t, 'legacy--5').get('/').expect(200);
    expect(res.text).toBe('<h1>old slug</h1>');
    expect(res.headers['x-robots-tag']).toBeUndefined();
    expect((await site(t, 'legacy--5--1').get('/').expect(200)).headers['x-robots-tag']).toBe('noindex');
  });

  describe('serving a preview host', () => {
    let projectId: string;
    beforeAll(async () => {
      await deploySite(t, token, 'serve', [...page('<h1>one</h1>'), { path: 'a.css', content: 'a{}' }]);
      await deploySite(t, token, 'serve', page('<h1>two</h1>'));
      projectId = (await projectBySlug('serve')).id;
    });

    it('serves an archived version at its address while another is live, and the live one at the site', async () => {
      const res = await site(t, 'serve--1').get('/').expect(200);
      expect(res.text).toBe('<h1>one</h1>');
      await site(t, 'serve--1').get('/a.css').expect(200, 'a{}');
      expect((await site(t, 'serve--2').get('/').expect(200)).text).toBe('<h1>two</h1>');
      expect((await site(t, 'serve').get('/').expect(200)).text).toBe('<h1>two</h1>');
      const [v2, v1] = await deployments(projectId);
      expect([v2.status, v1.status]).toEqual(['live', 'archived']);
    });

    it('sends X-Robots-Tag: noindex on every preview answer (file, 304, HEAD, missing page, 405, unknown version) and never on the site', async () => {
      const ok = await site(t, 'serve--1').get('/').expect(200);
      expect(ok.headers['x-robots-tag']).toBe('noindex');
      const notModified = await site(t, 'serve--1').get('/').set('If-None-Match', ok.headers.etag).expect(304);
      expect(notModified.headers['x-robots-tag']).toBe('noindex');
      expect((await site(t, 'serve--1').head('/').expect(200)).headers['x-robots-tag']).toBe('noindex');
      expect((await site(t, 'serve--1').get('/missing.js').expect(404)).headers['x-robots-tag']).toBe('noindex');
      expect((await site(t, 'serve--1').post('/').expect(405)).headers['x-robots-tag']).toBe('noindex');
      const unknown = await site(t, 'serve--9').get('/').expect(404);
      expect(unknown.text).toContain('Site not found');
      expect(unknown.headers['x-robots-tag']).toBe('noindex');
      expect((await site(t, 'serve').get('/').expect(200)).headers['x-robots-tag']).toBeUndefined();
    });

    it('keeps noindex on a preview whose _headers sets or removes X-Robots-Tag, which the live site does get', async () => {
      await deploySite(t, token, 'robots', [
        ...page('<h1>robots</h1>'),
        { path: '_headers', content: '/*\n  X-Robots-Tag: all\n/keep-out\n  ! X-Robots-Tag\n' },
      ]);
      expect((await site(t, 'robots').get('/').expect(200)).headers['x-robots-tag']).toBe('all');
      const preview = await site(t, 'robots--1').get('/').expect(200);
      expect(preview.headers['x-robots-tag']).toBe('noindex');
      expect((await site(t, 'robots--1').get('/').set('If-None-Match', preview.headers.etag).expect(304)).headers['x-robots-tag']).toBe('noindex');
      // A block removing it: the preview's answer keeps noindex.
      await deploySite(t, token, 'robots', [
        { path: 'keep-out.html', content: '<h1>k</h1>' },
        { path: '_headers', content: '/keep-out\n  ! X-Robots-Tag\n' },
      ]);
      expect((await site(t, 'robots--2').get('/keep-out').expect(200)).headers['x-robots-tag']).toBe('noindex');
    });

    it("answers only the exact label: no leading zeros, no other project's version", async () => {
      await site(t, 'serve--01').get('/').expect(404);
      await site(t, 'records--1').get('/').expect(200);
      await site(t, 'nobody-here--1').get('/').expect(404);
    });

    it('answers a new version at once, though its address was asked (and cached as unknown) before the deploy', async () => {
      await site(t, 'serve--3').get('/').expect(404);
      await deploySite(t, token, 'serve', page('<h1>three</h1>'));
      expect((await site(t, 'serve--3').get('/').expect(200)).text).toBe('<h1>three</h1>');
    });

    it('answers 410 once the deployment has expired (before and after the sweeper marks it), the live site unaffected', async () => {
      const short = await deploySite(t, token, 'expiring', page('<h1>short</h1>'), { ttl: '1h' });
      await deploySite(t, token, 'expiring', page('<h1>long</h1>'), { ttl: '30d' });
      await site(t, 'expiring--1').get('/').expect(200);
      const later = new Date(Date.now() + 2 * HOUR);
      jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(later);
      const gone = await site(t, 'expiring--1').get('/').expect(410);
      expect(gone.text).toContain('expired');
      expect(gone.headers['x-robots-tag']).toBe('noindex');
      expect((await t.app.get(TtlSweeper).runOnce()).expired).toBeGreaterThanOrEqual(1);
      await site(t, 'expiring--1').get('/').expect(410);
      expect((await site(t, 'expiring').get('/').expect(200)).text).toBe('<h1>long</h1>');
      expect(short.id).toMatch(/^dep_/);
    });

    it('stops answering once the project is deleted', async () => {
      await deploySite(t, token, 'doomed', page('<h1>doomed</h1>'));
      await site(t, 'doomed--1').get('/').expect(200);
      const { id } = await projectBySlug('doomed');
      await t.http().delete(`/projects/${id}`).set(bearer(token)).expect(204);
      await site(t, 'doomed--1').get('/').expect(404);
    });
  });

  describe('the gate on a preview', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = (
        await t
          .http()
          .post('/projects')
          .set(asUser(alice))
          .send({ name: 'Gated', slug: 'gated', type: 'static_site', gate_type: 'password', password: PASSWORD })
          .expect(201)
      ).body.id;
      await deploySite(t, token, 'gated', page('<h1>secret v1</h1>'));
      await deploySite(t, token, 'gated', page('<h1>secret v2</h1>'));
    });
    const unlock = (label: string, password = PASSWORD) => site(t, label).post('/.statichost/gate').type('form').send({ password, next: '/' });
    const cookieOf = (res: { headers: Record<string, unknown> }) => (res.headers['set-cookie'] as string[])[0].split(';')[0];

    it("asks for the project's password at the preview host (401, private, noindex) and unlocks it there", async () => {
      const locked = await site(t, 'gated--1').get('/').expect(401);
      expect(locked.text).toContain('type="password"');
      expect(locked.text).not.toContain('secret v1');
      expect(locked.headers['cache-control']).toBe('private, no-store');
      expect(locked.headers['x-robots-tag']).toBe('noindex');
      await unlock('gated--1', 'wrong').expect(401);
      const granted = await unlock('gated--1').expect(303);
      expect(granted.headers['x-robots-tag']).toBe('noindex');
      expect(granted.headers['set-cookie'][0]).not.toMatch(/Domain=/i);
      const res = await site(t, 'gated--1').get('/').set('Cookie', cookieOf(granted)).expect(200);
      expect(res.text).toBe('<h1>secret v1</h1>');
      expect(res.headers['cache-control']).toBe('private, no-store');
      // The same cookie value (bound to the project and its gate version) opens the project's other hosts.
      expect((await site(t, 'gated').get('/').set('Cookie', cookieOf(granted)).expect(200)).text).toBe('<h1>secret v2</h1>');
    });

    it('locks the preview again at once when the password changes (the preview entry is invalidated with the site)', async () => {
      const cookie = cookieOf(await unlock('gated--2').expect(303));
      await site(t, 'gated--2').get('/').set('Cookie', cookie).expect(200);
      await t.http().patch(`/projects/${projectId}`).set(asUser(alice)).send({ password: 'a new password 8' }).expect(200);
      await site(t, 'gated--2').get('/').set('Cookie', cookie).expect(401);
    });
  });

  describe('publish: false', () => {
    it('per project: creates a deployment served at its preview only; url is the preview; promote makes it live', async () => {
      await deploySite(t, token, 'staged', page('<h1>live one</h1>'));
      const { id } = await projectBySlug('staged');
      const res = (await deployTo(id, { files: page('<h1>candidate</h1>'), publish: false }).expect(201)).body;
      expect(res).toMatchObject({
        version: 2,
        status: 'archived',
        url: `http://staged--2.localhost:${t.port}`,
        previewUrl: `http://staged--2.localhost:${t.port}`,
      });
      expect((await site(t, 'staged').get('/').expect(200)).text).toBe('<h1>live one</h1>');
      expect((await site(t, 'staged--2').get('/').expect(200)).text).toBe('<h1>candidate</h1>');
      const project = (await t.http().get(`/projects/${id}`).set(bearer(token)).expect(200)).body;
      expect(project.liveDeploymentId).not.toBe(res.id);
      // The record read later names the site again.
      expect((await t.http().get(`/projects/${id}/deployments/${res.id}`).set(bearer(token)).expect(200)).body.url).toBe(`http://staged.localhost:${t.port}`);

      await t.http().patch(`/projects/${id}/deployments/${res.id}/promote`).set(bearer(token)).expect(200);
      expect((await site(t, 'staged').get('/').expect(200)).text).toBe('<h1>candidate</h1>');
      const [v2, v1] = await deployments(id);
      expect([v2.status, v1.status]).toEqual(['live', 'archived']);
    });

    it('lazy: keeps exactly the five keys with url = the preview; a first deploy leaves the new project with nothing live', async () => {
      const res = await deploySite(t, token, 'brand-new', page('<h1>draft</h1>'), { publish: false });
      expect(Object.keys(res).sort()).toEqual(['expires_at', 'id', 'size_bytes', 'url', 'version']);
      expect(res.url).toBe(`http://brand-new--1.localhost:${t.port}`);
      const nothing = await site(t, 'brand-new').get('/').expect(404);
      expect(nothing.text).toContain('Nothing published yet');
      expect((await site(t, 'brand-new--1').get('/').expect(200)).text).toBe('<h1>draft</h1>');
      const { id } = await projectBySlug('brand-new');
      expect((await t.http().get(`/projects/${id}`).set(bearer(token)).expect(200)).body.liveDeploymentId).toBeNull();
      // `true` is the default, and anything but a boolean is a 400 naming the field.
      const live = await deploySite(t, token, 'brand-new', page('<h1>now live</h1>'), { publish: true });
      expect(live.url).toBe(`http://brand-new.localhost:${t.port}`);
      expect((await site(t, 'brand-new').get('/').expect(200)).text).toBe('<h1>now live</h1>');
      const bad = await t
        .http()
        .post('/v1/deployments')
        .set(bearer(token))
        .send({ project_slug: 'brand-new', files: page('x'), publish: 'no' })
        .expect(400);
      expect(bad.body.message).toBe('publish: must be a boolean value');
    });

    it('counts against the monthly deployments and the storage like any deploy', async () => {
      const usage = async () => (await t.http().get(`/workspaces/${alice.workspaceId}`).set(asUser(alice)).expect(200)).body.usage;
      const before = await usage();
      await deploySite(t, token, 'counted', page(`unpublished bytes ${Date.now()}`), { publish: false });
      const after = await usage();
      expect(after.deploymentsPerMonth.used).toBe(before.deploymentsPerMonth.used + 1);
      expect(after.storageBytes.used).toBeGreaterThan(before.storageBytes.used);
    });
  });

  describe('clients', () => {
    let home: string;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'statichost-preview-'));
      await mkdir(join(home, 'site'));
      await writeFile(join(home, 'site', 'index.html'), '<h1>cli live</h1>');
    });
    afterAll(() => rm(home, { recursive: true, force: true }));
    const env = () => ({ HOME: home, STATICHOST_CONFIG: join(home, 'config.json'), STATICHOST_API_URL: base(), STATICHOST_TOKEN: token });

    it('statichost deploy --preview deploys without going live and prints the preview address', async () => {
      const first = await runCli(['deploy', join(home, 'site'), '--project', 'cli-preview'], env());
      expect(first.code).toBe(0);
      await writeFile(join(home, 'site', 'index.html'), '<h1>cli preview</h1>');
      const res = await runCli(['deploy', join(home, 'site'), '--project', 'cli-preview', '--preview'], env());
      expect(res).toMatchObject({ code: 0 });
      expect(res.stdout).toContain('Deployed a preview of version 2');
      expect(res.stdout).toContain(`http://cli-preview--2.localhost:${t.port}`);
      expect(res.stdout).toContain('statichost promote 2 --project cli-preview');
      expect((await site(t, 'cli-preview').get('/').expect(200)).text).toBe('<h1>cli live</h1>');
      expect((await site(t, 'cli-preview--2').get('/').expect(200)).text).toBe('<h1>cli preview</h1>');
      const json = await runCli(['--json', 'deploy', join(home, 'site'), '--project', 'cli-preview', '--preview'], env());
      expect(JSON.parse(json.stdout)).toMatchObject({ version: 3, url: `http://cli-preview--3.localhost:${t.port}` });
    });

    it('the MCP deploy tools take publish: false', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: home,
        env: { PATH: process.env.PATH ?? '', ...env() },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'statichost-e2e', version: '1.0.0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        for (const name of ['deploy_files', 'deploy_directory']) {
          expect(tools.find((tool) => tool.name === name)!.inputSchema.properties).toMatchObject({ publish: { type: 'boolean' } });
        }
        const call = async (name: string, args: object) => {
          const result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as { isError?: boolean; content: { text: string }[] };
          if (result.isError) throw new Error(result.content[0].text);
          return JSON.parse(result.content[0].text);
        };
        await call('deploy_files', { project_slug: 'mcp-preview', files: page('<h1>mcp live</h1>') });
        const preview = await call('deploy_files', { project_slug: 'mcp-preview', files: page('<h1>mcp draft</h1>'), publish: false });
        expect(preview.url).toBe(`http://mcp-preview--2.localhost:${t.port}`);
        const dir = await call('deploy_directory', { directory: 'site', project_slug: 'mcp-preview', publish: false });
        expect(dir.url).toBe(`http://mcp-preview--3.localhost:${t.port}`);
        expect((await site(t, 'mcp-preview').get('/').expect(200)).text).toBe('<h1>mcp live</h1>');
        expect((await site(t, 'mcp-preview--2').get('/').expect(200)).text).toBe('<h1>mcp draft</h1>');
      } finally {
        await client.close();
      }
    });
  });
});
