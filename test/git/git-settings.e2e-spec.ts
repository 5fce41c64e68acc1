import { GitSettingsService } from '../../src/git/git-settings.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

/** Made of runs of characters nothing else in the database holds, so a scan for them means something. */
const TOKEN = 'ghp_Qzvx7Kwplm3Jrtq9Ybnd2Hfgs5Wcx8Vzmk';
const SECRET_VALUE = 'Xyzzq-Plover-Vmkq-4471';

const PUBLIC = 'https://git.example.test/acme/site.git';

describe('Git settings and environment variables (e2e)', () => {
  let dns: TestDnsServer;
  let t: TestApp;
  let owner: UserSession;
  /** Every body the app answered in this suite, to look for the secrets in. */
  const answers: string[] = [];

  const record = (res: { text: string }) => void answers.push(res.text);
  const http = () => t.http();
  const newProject = async (name: string, session: UserSession = owner): Promise<string> =>
    (await http().post('/projects').set(asUser(session)).send({ name }).expect(201)).body.id as string;
  const putGit = (projectId: string, body: object, headers: Record<string, string> = asUser(owner)) =>
    http().put(`/projects/${projectId}/git`).set(headers).send(body).on('response', record);
  const getGit = (projectId: string, headers: Record<string, string> = asUser(owner)) =>
    http().get(`/projects/${projectId}/git`).set(headers).on('response', record);
  const putEnv = (projectId: string, name: string, body: object, headers: Record<string, string> = asUser(owner)) =>
    http().put(`/projects/${projectId}/env/${name}`).set(headers).send(body).on('response', record);
  const listEnv = (projectId: string, headers: Record<string, string> = asUser(owner)) =>
    http().get(`/projects/${projectId}/env`).set(headers).on('response', record);

  beforeAll(async () => {
    dns = await startDnsServer();
    dns.setA('git.example.test', '93.184.215.14');
    dns.setA('elsewhere.example.test', '93.184.215.15');
    dns.setA('rebind.example.test', '127.0.0.1');
    dns.setA('metadata.example.test', '169.254.169.254');
    dns.setA('lan.example.test', '10.0.3.7');
    dns.setServfail('broken.example.test');
    t = await startTestApp({ env: { DNS_SERVERS: dns.server } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  describe('PUT, GET, DELETE /projects/:projectId/git', () => {
    it('connects a repository, shows the settings and the webhook URL, and disconnects', async () => {
      const projectId = await newProject('Connected');
      await getGit(projectId).expect(404);
      const res = await putGit(projectId, {
        repository: PUBLIC,
        productionBranch: 'main',
        rootDirectory: './site/',
        installCommand: 'npm ci',
        buildCommand: 'npm run build',
        outputDirectory: 'dist/',
        nodeVersion: '22.x',
      }).expect(200);
      expect(res.body).toEqual({
        projectId,
        repository: PUBLIC,
        productionBranch: 'main',
        rootDirectory: 'site',
        installCommand: 'npm ci',
        buildCommand: 'npm run build',
        outputDirectory: 'dist',
        nodeVersion: '22.x',
        hasAccessToken: false,
        webhookUrl: `${t.config.apiBaseUrl}/hooks/git/${projectId}`,
        hasWebhookSecret: false,
        buildForkPullRequests: false,
        forge: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      });
      expect((await getGit(projectId).expect(200)).body).toEqual(res.body);

      await http().delete(`/projects/${projectId}/git`).set(asUser(owner)).expect(204);
      const gone = await getGit(projectId).expect(404);
      expect(gone.body).toMatchObject({ statusCode: 404, code: 'git_not_connected' });
      expect(gone.body.message).toContain(`PUT /projects/${projectId}/git`);
      expect((await http().delete(`/projects/${projectId}/git`).set(asUser(owner)).expect(404)).body.code).toBe('git_not_connected');
    });

    it('replaces the settings on PUT: optional fields left out are unset, the root is ""', async () => {
      const projectId = await newProject('Replaced');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', buildCommand: 'make', outputDirectory: 'out', rootDirectory: 'web' }).expect(200);
      const res = await putGit(projectId, { repository: PUBLIC, productionBranch: 'release/2.x', buildCommand: null }).expect(200);
      expect(res.body).toMatchObject({
        productionBranch: 'release/2.x',
        rootDirectory: '',
        installCommand: null,
        buildCommand: null,
        outputDirectory: null,
        nodeVersion: null,
      });
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.createdAt));
    });

    it('keeps the access token when left out, removes it with null, and never shows it', async () => {
      const projectId = await newProject('Private repo');
      expect((await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', accessToken: TOKEN }).expect(200)).body.hasAccessToken).toBe(true);
      expect((await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200)).body.hasAccessToken).toBe(true);
      const inputs = await t.app.get(GitSettingsService).buildInputs(projectId, 'production');
      expect(inputs?.accessToken).toBe(TOKEN);
      expect((await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', accessToken: null }).expect(200)).body.hasAccessToken).toBe(false);
      expect((await t.app.get(GitSettingsService).buildInputs(projectId, 'production'))?.accessToken).toBeNull();
      // Set again for the scans at the end of the suite.
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', accessToken: TOKEN }).expect(200);
    });

    it('does not carry a kept access token to another host: moving the repository there asks for that host’s token (or null)', async () => {
      const projectId = await newProject('Moved repo');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', accessToken: TOKEN }).expect(200);
      const elsewhere = 'https://elsewhere.example.test/acme/site.git';
      const res = await putGit(projectId, { repository: elsewhere, productionBranch: 'main' }).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain('accessToken: the stored access token is for https://git.example.test');
      expect((await t.app.get(GitSettingsService).buildInputs(projectId, 'production'))?.repository).toBe(PUBLIC);
      // Another path on the same host keeps it; the other host with its own token, or none, is saved.
      await putGit(projectId, { repository: 'https://git.example.test/acme/other.git', productionBranch: 'main' }).expect(200);
      expect((await t.app.get(GitSettingsService).buildInputs(projectId, 'production'))?.accessToken).toBe(TOKEN);
      expect((await putGit(projectId, { repository: elsewhere, productionBranch: 'main', accessToken: null }).expect(200)).body.hasAccessToken).toBe(false);
    });

    it('is gone with its project', async () => {
      const projectId = await newProject('Deleted');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', accessToken: TOKEN }).expect(200);
      await putEnv(projectId, 'API_KEY', { value: SECRET_VALUE, targets: ['production'] }).expect(200);
      await http().delete(`/projects/${projectId}`).set(asUser(owner)).expect(204);
      const rows = await t.dataSource.query(
        `SELECT (SELECT count(*) FROM project_git WHERE project_id = $1)::int AS git, (SELECT count(*) FROM project_env_vars WHERE project_id = $1)::int AS env`,
        [projectId],
      );
      expect(rows[0]).toEqual({ git: 0, env: 0 });
    });
  });

  describe('the repository URL policy', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = await newProject('Policy');
    });

    it.each([
      ['http without GIT_ALLOW_PRIVATE_ADDRESSES', 'http://git.example.test/acme/site.git', 'http:// is not encrypted'],
      ['file://', 'file:///srv/git/site.git', 'file://'],
      ['ssh://', 'ssh://git@git.example.test/acme/site.git', 'ssh://'],
      ['git://', 'git://git.example.test/acme/site.git', 'git://'],
      ['ext::', 'ext::sh -c touch% /tmp/pwned', '"ext::" transport'],
      ['ext:: without spaces', 'ext::/bin/sh', '"ext::" transport'],
      ['scp-like', 'git@git.example.test:acme/site.git', 'scp-like'],
      ['credentials in the URL', 'https://x-access-token:ghp_abc@git.example.test/acme/site.git', 'credentials'],
      ['a user name in the URL', 'https://deploy@git.example.test/acme/site.git', 'credentials'],
      ['a fragment', `${PUBLIC}#main`, 'fragment'],
      ['a control character', 'https://git.example.test/acme/\tsite.git', 'control character'],
      ['127.0.0.1', 'https://127.0.0.1/acme/site.git', '127.0.0.1 is a loopback address'],
      ['127.0.0.1 spelled in hex', 'https://0x7f000001/acme/site.git', '127.0.0.1 is a loopback address'],
      ['10.x', 'https://10.1.2.3/acme/site.git', 'private address'],
      ['192.168.x', 'https://192.168.0.10/acme/site.git', 'private address'],
      ['the metadata address', 'https://169.254.169.254/latest/meta-data/', 'link-local'],
      ['CGNAT', 'https://100.64.0.1/acme/site.git', 'carrier-grade NAT'],
      ['[::1]', 'https://[::1]/acme/site.git', 'loopback'],
      ['IPv4-mapped loopback', 'https://[::ffff:7f00:1]/acme/site.git', 'loopback'],
      ['unique-local IPv6', 'https://[fd12:3456::1]/acme/site.git', 'unique-local'],
      ['localhost (resolves to 127.0.0.1)', 'https://localhost/acme/site.git', 'localhost resolves to a loopback address'],
      ['a name resolving to 127.0.0.1', 'https://rebind.example.test/acme/site.git', 'rebind.example.test resolves to a loopback address'],
      ['a name resolving to the metadata address', 'https://metadata.example.test/a.git', 'metadata.example.test resolves to a link-local address'],
      ['a name resolving to a private address', 'https://lan.example.test/a.git', 'lan.example.test resolves to a private address'],
      ['a name that does not exist', 'https://nowhere.example.test/a.git', 'does not exist'],
      ['no repository path', 'https://git.example.test/', 'names no repository'],
      ['an over-long URL', `https://git.example.test/${'a'.repeat(2100)}.git`, 'longer than 2048'],
    ])('refuses %s with 400 repository_not_allowed, changing nothing', async (_label, repository, why) => {
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', buildCommand: 'kept' }).expect(200);
      const res = await putGit(projectId, { repository, productionBranch: 'main' }).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'repository_not_allowed' });
      expect(res.body.message).toContain('repository: The repository URL is refused');
      expect(res.body.message).toContain(why);
      // A name is refused by the kind of address it resolves to, never by the address.
      if (!/^https:\/\/[\d[]/.test(repository) && !repository.includes('0x')) expect(res.body.message).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
      expect((await getGit(projectId).expect(200)).body).toMatchObject({ repository: PUBLIC, buildCommand: 'kept' });
    });

    it('answers 503 repository_lookup_failed when DNS fails for the host, changing nothing', async () => {
      const fresh = await newProject('Lookup failure');
      const res = await putGit(fresh, { repository: 'https://broken.example.test/a.git', productionBranch: 'main' }).expect(503);
      expect(res.body).toMatchObject({ code: 'repository_lookup_failed' });
      expect(res.body.message).toContain('broken.example.test');
      await getGit(fresh).expect(404);
    });

    it('stores the URL in the form it was checked in', async () => {
      const res = await putGit(projectId, { repository: 'HTTPS://GIT.Example.TEST/acme/site.git', productionBranch: 'main' }).expect(200);
      expect(res.body.repository).toBe(PUBLIC);
    });
  });

  describe('validation of the other fields', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = await newProject('Validation');
    });

    it.each([
      ['productionBranch missing', { productionBranch: undefined }, 'productionBranch'],
      ['productionBranch with ..', { productionBranch: 'a..b' }, 'productionBranch: must not hold ".."'],
      ['productionBranch starting with -', { productionBranch: '--upload-pack=x' }, 'productionBranch: must not start with "-"'],
      ['productionBranch with a space', { productionBranch: 'my branch' }, 'productionBranch: must not hold spaces'],
      ['productionBranch too long', { productionBranch: 'b'.repeat(256) }, 'productionBranch: must be at most 255'],
      ['rootDirectory absolute', { rootDirectory: '/etc' }, 'rootDirectory: must be relative'],
      ['rootDirectory climbing out', { rootDirectory: 'site/../..' }, 'rootDirectory: must not hold ".."'],
      ['outputDirectory climbing out', { outputDirectory: '../dist' }, 'outputDirectory: must not hold ".."'],
      ['a command over 4 KiB', { buildCommand: 'x'.repeat(4097) }, 'buildCommand: must be at most 4096 bytes'],
      ['a command that is not a string', { installCommand: ['npm', 'ci'] }, 'installCommand'],
      ['nodeVersion not a version', { nodeVersion: 'latest; rm -rf /' }, 'nodeVersion: must be a Node major version'],
      ['accessToken with whitespace', { accessToken: 'ghp_a b' }, 'accessToken: must not hold whitespace'],
      ['accessToken over 4 KiB', { accessToken: 't'.repeat(4097) }, 'accessToken: must be at most 4096'],
      ['repository not a string', { repository: 42 }, 'repository'],
      ['an unknown field', { branch: 'main' }, 'branch'],
    ])('refuses %s with 400, changing nothing', async (_label, change, where) => {
      const body = { repository: PUBLIC, productionBranch: 'main', ...change };
      // JSON drops the fields set to undefined: a missing field.
      const res = await putGit(projectId, body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
      expect(res.body.message).toContain(where);
      await getGit(projectId).expect(404);
    });
  });

  describe('environment variables', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = await newProject('Env');
    });

    it('sets, lists (sorted, without values), replaces and deletes variables', async () => {
      const put = await putEnv(projectId, 'SECRET_TOKEN', { value: SECRET_VALUE, targets: ['preview', 'production'] }).expect(200);
      expect(put.body).toEqual({ name: 'SECRET_TOKEN', targets: ['production', 'preview'], updatedAt: expect.stringMatching(/Z$/) });
      await putEnv(projectId, 'API_URL', { value: 'https://api.example.com', targets: ['production'] }).expect(200);
      await putEnv(projectId, 'PREVIEW_ONLY', { value: 'yes', targets: ['preview'] }).expect(200);
      await putEnv(projectId, 'EMPTY', { value: '', targets: ['production'] }).expect(200);

      const list = await listEnv(projectId).expect(200);
      expect(list.body).toEqual({
        data: [
          { name: 'API_URL', targets: ['production'], updatedAt: expect.any(String) },
          { name: 'EMPTY', targets: ['production'], updatedAt: expect.any(String) },
          { name: 'PREVIEW_ONLY', targets: ['preview'], updatedAt: expect.any(String) },
          { name: 'SECRET_TOKEN', targets: ['production', 'preview'], updatedAt: expect.any(String) },
        ],
      });

      // Replacing changes value and targets.
      await putEnv(projectId, 'API_URL', { value: 'https://api2.example.com', targets: ['production', 'preview'] }).expect(200);

      const git = t.app.get(GitSettingsService);
      expect(await git.buildInputs(projectId, 'production')).toBeNull();
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200);
      expect((await git.buildInputs(projectId, 'production'))?.env).toEqual({ API_URL: 'https://api2.example.com', EMPTY: '', SECRET_TOKEN: SECRET_VALUE });
      expect((await git.buildInputs(projectId, 'preview'))?.env).toEqual({
        API_URL: 'https://api2.example.com',
        PREVIEW_ONLY: 'yes',
        SECRET_TOKEN: SECRET_VALUE,
      });
      expect((await git.buildInputs(projectId, 'preview', { withEnv: false }))?.env).toEqual({});

      await http().delete(`/projects/${projectId}/env/PREVIEW_ONLY`).set(asUser(owner)).expect(204);
      const missing = await http().delete(`/projects/${projectId}/env/PREVIEW_ONLY`).set(asUser(owner)).expect(404);
      expect(missing.body).toMatchObject({ code: 'env_var_not_found' });
      expect(missing.body.message).toContain('PREVIEW_ONLY');
      expect((await listEnv(projectId).expect(200)).body.data.map((v: { name: string }) => v.name)).toEqual(['API_URL', 'EMPTY', 'SECRET_TOKEN']);
    });

    it.each([
      ['no targets', { value: 'v', targets: [] }, 'targets'],
      ['an unknown target', { value: 'v', targets: ['staging'] }, 'targets'],
      ['a target twice', { value: 'v', targets: ['production', 'production'] }, 'targets'],
      ['targets missing', { value: 'v' }, 'targets'],
      ['value missing', { targets: ['production'] }, 'value'],
      ['value not a string', { value: 42, targets: ['production'] }, 'value'],
      ['value over 32 KiB', { value: 'v'.repeat(32 * 1024 + 1), targets: ['production'] }, 'value: must be at most 32768 bytes'],
      ['an unknown field', { value: 'v', targets: ['production'], secret: true }, 'secret'],
    ])('refuses %s with 400', async (_label, body, where) => {
      const res = await putEnv(projectId, 'REFUSED', body).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
      expect(res.body.message).toContain(where);
      expect((await listEnv(projectId).expect(200)).body.data.map((v: { name: string }) => v.name)).not.toContain('REFUSED');
    });

    it.each(['1ABC', 'A-B', 'A.B', `A${'B'.repeat(256)}`])('refuses the name %s with 400', async (name) => {
      const res = await putEnv(projectId, name, { value: 'v', targets: ['production'] }).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
      expect(res.body.message).toContain('name:');
      await http().delete(`/projects/${projectId}/env/${name}`).set(asUser(owner)).expect(400);
    });
  });

  describe('who may', () => {
    let projectId: string;
    let otherProjectId: string;
    beforeAll(async () => {
      projectId = await newProject('Access');
      otherProjectId = await newProject('Access other');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200);
      await putEnv(projectId, 'A', { value: 'a', targets: ['production'] }).expect(200);
    });

    it('a viewer reads the settings and variables but changes nothing', async () => {
      const viewer = await registerUser(t);
      await addMember(t, owner, viewer, 'viewer');
      const as = asUser(viewer, owner.workspaceId);
      await getGit(projectId, as).expect(200);
      await listEnv(projectId, as).expect(200);
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'dev' }, as).expect(403);
      await http().delete(`/projects/${projectId}/git`).set(as).expect(403);
      await putEnv(projectId, 'B', { value: 'b', targets: ['production'] }, as).expect(403);
      await http().delete(`/projects/${projectId}/env/A`).set(as).expect(403);
      expect((await getGit(projectId).expect(200)).body.productionBranch).toBe('main');
    });

    it('an admin member changes them', async () => {
      const admin = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', nodeVersion: '20' }, asUser(admin, owner.workspaceId)).expect(200);
    });

    it('a read token reads, an admin token writes', async () => {
      const read = await createApiToken(t, owner, { scopes: ['read'] });
      await getGit(projectId, bearer(read.token)).expect(200);
      await listEnv(projectId, bearer(read.token)).expect(200);
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }, bearer(read.token)).expect(403);
      await putEnv(projectId, 'B', { value: 'b', targets: ['production'] }, bearer(read.token)).expect(403);
      const deploy = await createApiToken(t, owner, { scopes: ['deploy', 'read'] });
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }, bearer(deploy.token)).expect(403);
      const admin = await createApiToken(t, owner, { scopes: ['read', 'admin'] });
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }, bearer(admin.token)).expect(200);
      await putEnv(projectId, 'B', { value: 'b', targets: ['production'] }, bearer(admin.token)).expect(200);
    });

    it('a token bound to another project, and another workspace, get 404', async () => {
      const bound = await createApiToken(t, owner, { scopes: ['read', 'admin'], projectId: otherProjectId });
      for (const headers of [bearer(bound.token), asUser(await registerUser(t))]) {
        expect((await getGit(projectId, headers).expect(404)).body.code).toBe('not_found');
        await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }, headers).expect(404);
        await http().delete(`/projects/${projectId}/git`).set(headers).expect(404);
        await listEnv(projectId, headers).expect(404);
        await putEnv(projectId, 'C', { value: 'c', targets: ['production'] }, headers).expect(404);
        await http().delete(`/projects/${projectId}/env/A`).set(headers).expect(404);
      }
      await getGit(projectId).expect(200);
      expect((await listEnv(projectId).expect(200)).body.data.map((v: { name: string }) => v.name)).toEqual(['A', 'B']);
      await getGit(otherProjectId, bearer(bound.token)).expect(404);
    });
  });

  describe('webhook secret, fork builds and forge (issue 29)', () => {
    const rotate = (projectId: string, headers: Record<string, string> = asUser(owner)) =>
      http().post(`/projects/${projectId}/git/webhook-secret`).set(headers).on('response', record);

    it('creates a secret on demand, shows it once, and replaces it on the next call', async () => {
      const projectId = await newProject('Webhook secret');
      expect((await rotate(projectId).expect(404)).body.code).toBe('git_not_connected');
      expect((await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200)).body.hasWebhookSecret).toBe(false);

      const first = await rotate(projectId).expect(200);
      expect(first.body).toEqual({ webhookUrl: `${t.config.apiBaseUrl}/hooks/git/${projectId}`, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      const settings = (await getGit(projectId).expect(200)).body;
      expect(settings.hasWebhookSecret).toBe(true);
      expect(JSON.stringify(settings)).not.toContain(first.body.secret);
      const target = t.app.get(GitSettingsService);
      expect(await target.webhookTarget(projectId)).toMatchObject({ projectId, repository: PUBLIC, productionBranch: 'main', secret: first.body.secret });

      const second = await rotate(projectId).expect(200);
      expect(second.body.secret).not.toBe(first.body.secret);
      expect((await target.webhookTarget(projectId))?.secret).toBe(second.body.secret);
      // A PUT of the other settings keeps it.
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'dev' }).expect(200);
      expect((await target.webhookTarget(projectId))?.secret).toBe(second.body.secret);
      const stored = await t.dataSource.query(`SELECT webhook_ciphertext FROM project_git WHERE project_id = $1`, [projectId]);
      expect(stored[0].webhook_ciphertext.includes(Buffer.from(second.body.secret))).toBe(false);
    });

    it('a sealed access token copied into the webhook secret columns does not open as the secret', async () => {
      const projectId = await newProject('Token as secret');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', accessToken: TOKEN }).expect(200);
      await t.dataSource.query(
        `UPDATE project_git SET webhook_key_id = token_key_id, webhook_nonce = token_nonce, webhook_ciphertext = token_ciphertext WHERE project_id = $1`,
        [projectId],
      );
      await expect(t.app.get(GitSettingsService).webhookTarget(projectId)).rejects.toThrow('does not open');
    });

    it('keeps buildForkPullRequests and forge when left out, sets them when given, and refuses other values', async () => {
      const projectId = await newProject('Fork settings');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200);
      const set = await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', buildForkPullRequests: true, forge: 'gitea' }).expect(200);
      expect(set.body).toMatchObject({ buildForkPullRequests: true, forge: 'gitea' });
      const kept = await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', buildCommand: 'make' }).expect(200);
      expect(kept.body).toMatchObject({ buildForkPullRequests: true, forge: 'gitea', buildCommand: 'make' });
      const cleared = await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', buildForkPullRequests: false, forge: null }).expect(200);
      expect(cleared.body).toMatchObject({ buildForkPullRequests: false, forge: null });

      for (const body of [{ forge: 'bitbucket' }, { buildForkPullRequests: 'yes' }]) {
        const res = await putGit(projectId, { repository: PUBLIC, productionBranch: 'main', ...body }).expect(400);
        expect(res.body.message).toContain(Object.keys(body)[0]);
      }
      expect((await getGit(projectId).expect(200)).body).toMatchObject({ buildForkPullRequests: false, forge: null });
    });

    it('only an admin of the project rotates: a deploy token, a viewer and a token bound to another project cannot', async () => {
      const projectId = await newProject('Rotate access');
      const otherProjectId = await newProject('Rotate access other');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200);
      const deploy = await createApiToken(t, owner, { scopes: ['deploy', 'read'] });
      await rotate(projectId, bearer(deploy.token)).expect(403);
      const viewer = await registerUser(t);
      await addMember(t, owner, viewer, 'viewer');
      await rotate(projectId, asUser(viewer, owner.workspaceId)).expect(403);
      const bound = await createApiToken(t, owner, { scopes: ['read', 'admin'], projectId: otherProjectId });
      expect((await rotate(projectId, bearer(bound.token)).expect(404)).body.code).toBe('not_found');
      expect((await getGit(projectId).expect(200)).body.hasWebhookSecret).toBe(false);
      const admin = await createApiToken(t, owner, { scopes: ['admin'], projectId });
      await rotate(projectId, bearer(admin.token)).expect(200);
    });
  });

  describe('secrets at rest', () => {
    it('no answer, log line or column holds the access token or a value', async () => {
      // The scan is only meaningful if the secrets are stored at all.
      const stored = await t.dataSource.query(`SELECT count(*)::int AS n FROM project_git WHERE token_ciphertext IS NOT NULL`);
      expect(stored[0].n).toBeGreaterThan(0);
      const secrets = [TOKEN, SECRET_VALUE, TOKEN.slice(4, 20), SECRET_VALUE.slice(0, 12)];
      for (const body of answers) for (const s of secrets) expect(body).not.toContain(s);
      for (const line of t.logs) for (const s of secrets) expect(line).not.toContain(s);

      const columns: { table_name: string; column_name: string; data_type: string }[] = await t.dataSource.query(
        `SELECT table_name, column_name, data_type FROM information_schema.columns
         WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'bytea', 'json', 'jsonb', 'ARRAY')`,
      );
      expect(columns.map((c) => `${c.table_name}.${c.column_name}`)).toEqual(
        expect.arrayContaining(['project_git.token_ciphertext', 'project_env_vars.value_ciphertext']),
      );
      const found: string[] = [];
      for (const c of columns) {
        const rows: { v: string | Buffer | null }[] = await t.dataSource.query(
          `SELECT ${c.data_type === 'bytea' ? `"${c.column_name}"` : `"${c.column_name}"::text`} AS v FROM "${c.table_name}"`,
        );
        for (const { v } of rows) {
          if (v === null) continue;
          const haystack = Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');
          for (const s of secrets) if (haystack.includes(Buffer.from(s, 'utf8'))) found.push(`${c.table_name}.${c.column_name}`);
        }
      }
      expect(found).toEqual([]);
    });

    it('a sealed value moved to another variable does not open', async () => {
      const projectId = await newProject('Moved');
      await putGit(projectId, { repository: PUBLIC, productionBranch: 'main' }).expect(200);
      await putEnv(projectId, 'FIRST', { value: SECRET_VALUE, targets: ['production'] }).expect(200);
      await putEnv(projectId, 'SECOND', { value: 'other', targets: ['production'] }).expect(200);
      await t.dataSource.query(
        `UPDATE project_env_vars SET value_nonce = f.value_nonce, value_ciphertext = f.value_ciphertext
         FROM project_env_vars f WHERE f.project_id = $1 AND f.name = 'FIRST' AND project_env_vars.project_id = $1 AND project_env_vars.name = 'SECOND'`,
        [projectId],
      );
      await expect(t.app.get(GitSettingsService).buildInputs(projectId, 'production')).rejects.toThrow('Environment variable SECOND');
    });
  });
});

describe('Git settings with GIT_ALLOW_PRIVATE_ADDRESSES=true (e2e)', () => {
  let git: GitServer;
  let t: TestApp;
  let owner: UserSession;
  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', { 'index.html': 'hello' });
    t = await startTestApp({ env: { GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  it('connects a repository served over http:// on 127.0.0.1, and still refuses other transports', async () => {
    const projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'Local forge' }).expect(201)).body.id as string;
    const res = await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({ repository: git.url('site'), productionBranch: 'main' })
      .expect(200);
    expect(res.body.repository).toBe(git.url('site'));
    for (const repository of [
      'file:///srv/site.git',
      'ssh://127.0.0.1/site.git',
      'git://127.0.0.1/site.git',
      'ext::sh',
      'git@127.0.0.1:site.git',
      'http://u:p@127.0.0.1/site.git',
    ]) {
      const refused = await t.http().put(`/projects/${projectId}/git`).set(asUser(owner)).send({ repository, productionBranch: 'main' }).expect(400);
      expect(refused.body.code).toBe('repository_not_allowed');
    }
    expect((await t.app.get(GitSettingsService).buildInputs(projectId, 'production'))?.repository).toBe(git.url('site'));
  });
});
