import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { fetchSite, site } from '../helpers/sites';
import { BIN } from './cli-process';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

/**
 * `statichost mcp`, driven by the MCP SDK's own client over stdio, as an agent
 * host (Claude Desktop, an IDE) would run it.
 */
describe('statichost mcp: the agent-tool server (e2e)', () => {
  let t: TestApp;
  let home: string;
  let client: Client;
  let transport: StdioClientTransport;
  let user: Awaited<ReturnType<typeof registerUser>>;

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  /** The tool's structured result (the client has checked it against the tool's outputSchema), which the text content repeats. */
  const data = (result: ToolResult) => {
    if (result.isError) throw new Error(`tool failed: ${result.content[0]?.text}`);
    expect(result.structuredContent).toBeDefined();
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    return result.structuredContent as any;
  };
  let dns: TestDnsServer;

  beforeAll(async () => {
    // Room for every project and deploy these tests make (the free plan allows 3 and 10).
    dns = await startDnsServer();
    t = await startTestApp({
      env: { PLANS_JSON: JSON.stringify({ free: { projects: 50, deploymentsPerMonth: 500 } }), DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000' },
    });
    user = await registerUser(t);
    const { token } = await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin', 'delete'] });
    home = await mkdtemp(join(tmpdir(), 'statichost-mcp-'));
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home, STATICHOST_CONFIG: join(home, 'config.json'), STATICHOST_TOKEN: token, STATICHOST_API_URL: t.baseUrl },
      stderr: 'pipe',
    });
    client = new Client({ name: 'statichost-e2e', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
    await dns?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('lists its tools, each with a JSON schema for its input and its output, named as the API names things', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'add_domain',
      'archive_deployment',
      'cancel_build',
      'connect_git',
      'deploy_directory',
      'deploy_files',
      'get_analytics',
      'get_build',
      'list_builds',
      'list_deployments',
      'list_env_vars',
      'list_leads',
      'list_previews',
      'list_projects',
      'promote_deployment',
      'read_build_log',
      'remove_domain',
      'rotate_webhook_secret',
      'set_env_var',
      'set_gate',
      'start_build',
      'verify_domain',
    ]);
    const deployFiles = tools.find((tool) => tool.name === 'deploy_files')!;
    expect(deployFiles.description).toContain('URL');
    expect(deployFiles.inputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['project_slug', 'files']),
      properties: {
        project_slug: { type: 'string', pattern: expect.any(String) },
        files: { type: 'array', minItems: 1, items: { type: 'object', required: expect.arrayContaining(['path', 'content']) } },
        ttl: { type: 'string' },
        publish: { type: 'boolean' },
      },
    });
    expect(deployFiles.outputSchema).toMatchObject({ type: 'object', properties: { url: { type: 'string' }, version: { type: 'integer' } } });
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      // No tool takes a project under another name than the API's.
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('project');
    }
    // Numbers where the description says number.
    const promote = tools.find((tool) => tool.name === 'promote_deployment')!;
    expect(promote.inputSchema.properties).toMatchObject({ project_slug: { type: 'string' }, version: { type: 'integer' } });
    expect(tools.find((tool) => tool.name === 'list_projects')!.inputSchema.properties).toMatchObject({
      page: { type: 'integer' },
      limit: { type: 'integer' },
    });
    expect(tools.find((tool) => tool.name === 'list_projects')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('deploys inline files and the returned URL serves them', async () => {
    const deployment = data(
      await call('deploy_files', {
        project_slug: 'agent-site',
        files: [
          { path: 'index.html', content: '<h1>made by an agent</h1>' },
          { path: 'img/dot.gif', content: 'R0lGODlhAQABAAAAACw=', encoding: 'base64' },
        ],
      }),
    );
    expect(deployment).toMatchObject({ version: 1, url: `http://agent-site.localhost:${t.port}` });
    expect(await fetchSite(t, deployment.url)).toEqual({ status: 200, body: '<h1>made by an agent</h1>' });
  });

  it('deploys a local folder, uploading only what the service lacks', async () => {
    const dir = join(home, 'site');
    await mkdir(join(dir, 'docs'), { recursive: true });
    await writeFile(join(dir, 'index.html'), '<h1>from a folder</h1>');
    await writeFile(join(dir, 'docs', 'a.html'), '<p>a</p>');
    const first = data(await call('deploy_directory', { directory: 'site', project_slug: 'agent-folder' }));
    expect(first).toMatchObject({ version: 1, files: 2, uploaded_files: 2 });
    expect(await fetchSite(t, first.url, '/docs/a')).toEqual({ status: 200, body: '<p>a</p>' });

    await writeFile(join(dir, 'index.html'), '<h1>from a folder, v2</h1>');
    const second = data(await call('deploy_directory', { directory: dir, project_slug: 'agent-folder', ttl: '1d' }));
    expect(second).toMatchObject({ version: 2, files: 2, uploaded_files: 1 });
    expect(await fetchSite(t, second.url)).toEqual({ status: 200, body: '<h1>from a folder, v2</h1>' });
  });

  it('lists projects and deployments, and promotes an earlier version', async () => {
    const projects = data(await call('list_projects', {}));
    expect(projects.data.map((p: { slug: string }) => p.slug).sort()).toEqual(['agent-folder', 'agent-site']);
    const deployments = data(await call('list_deployments', { project_slug: 'agent-folder' }));
    expect(deployments.data.map((d: { version: number; status: string }) => [d.version, d.status])).toEqual([
      [2, 'live'],
      [1, 'archived'],
    ]);
    const promoted = data(await call('promote_deployment', { project_slug: 'agent-folder', version: 1 }));
    expect(promoted).toMatchObject({ version: 1, status: 'live' });
    expect(await fetchSite(t, promoted.url)).toEqual({ status: 200, body: '<h1>from a folder</h1>' });
  });

  it('lists the leads an email gate captured', async () => {
    const project = data(await call('list_projects', {})).data.find((p: { slug: string }) => p.slug === 'agent-site');
    await t.http().patch(`/projects/${project.id}`).set(asUser(user)).send({ gate_type: 'email' }).expect(200);
    await site(t, 'agent-site').post('/.statichost/gate').type('form').send({ email: 'visitor@example.com', next: '/' }).expect(303);
    const one = data(await call('list_leads', { project_slug: 'agent-site' }));
    expect(one).toMatchObject({ meta: { total: 1 }, data: [{ email: 'visitor@example.com' }] });
    const all = data(await call('list_leads', { search: 'VISITOR' }));
    expect(all.data).toEqual([expect.objectContaining({ email: 'visitor@example.com', projectSlug: 'agent-site', projectId: project.id })]);
    expect(data(await call('list_leads', { search: 'nobody' })).data).toEqual([]);
  });

  it('deploys a preview that is not live, then promotes it; archives by version number', async () => {
    const first = data(await call('deploy_files', { project_slug: 'agent-preview', files: [{ path: 'index.html', content: '<h1>live</h1>' }] }));
    const preview = data(
      await call('deploy_files', { project_slug: 'agent-preview', files: [{ path: 'index.html', content: '<h1>preview</h1>' }], publish: false }),
    );
    expect(preview).toMatchObject({ version: 2, url: `http://agent-preview--2.localhost:${t.port}` });
    expect(await fetchSite(t, preview.url)).toMatchObject({ status: 200, body: '<h1>preview</h1>' });
    expect(await fetchSite(t, first.url)).toEqual({ status: 200, body: '<h1>live</h1>' });
    expect(data(await call('promote_deployment', { project_slug: 'agent-preview', version: 2 }))).toMatchObject({ version: 2, status: 'live' });
    expect(await fetchSite(t, first.url)).toEqual({ status: 200, body: '<h1>preview</h1>' });
    expect(data(await call('archive_deployment', { project_slug: 'agent-preview', version: 1 }))).toMatchObject({ version: 1, status: 'archived' });
    // A version is a number, as the schema says: a string is refused before anything is done.
    const wrongType = await call('archive_deployment', { project_slug: 'agent-preview', version: '1' });
    expect(wrongType.isError).toBe(true);
  });

  it('sets a password gate and opens the site again', async () => {
    const gated = data(await call('set_gate', { project_slug: 'agent-folder', gate_type: 'password', password: 'open sesame' }));
    expect(gated).toMatchObject({ slug: 'agent-folder', gate_type: 'password' });
    expect(gated).not.toHaveProperty('password');
    expect((await fetchSite(t, gated.url)).body).not.toContain('from a folder');
    const noPassword = await call('set_gate', { project_slug: 'agent-folder', gate_type: 'password' });
    expect(noPassword).toMatchObject({ isError: true, content: [{ text: 'Error: password is required with gate_type "password"' }] });
    expect(data(await call('set_gate', { project_slug: 'agent-folder', gate_type: 'none' }))).toMatchObject({ gate_type: 'none' });
    expect(await fetchSite(t, gated.url)).toEqual({ status: 200, body: '<h1>from a folder</h1>' });
  });

  it('attaches a custom domain, verifies it over DNS and removes it', async () => {
    const added = data(await call('add_domain', { project_slug: 'agent-folder', custom_domain: 'www.agent-example.test' }));
    expect(added).toMatchObject({ custom_domain: 'www.agent-example.test', domainStatus: 'pending' });
    const records = added.domainRecords as { type: string; name: string; value: string }[];
    expect(records.map((r) => r.type)).toEqual(['TXT', 'CNAME']);
    expect(data(await call('verify_domain', { project_slug: 'agent-folder' }))).toMatchObject({ verified: false });
    dns.setTxt(records[0].name, records[0].value);
    expect(data(await call('verify_domain', { project_slug: 'agent-folder' }))).toMatchObject({ verified: true, domainStatus: 'verified' });
    expect(data(await call('remove_domain', { project_slug: 'agent-folder' }))).toMatchObject({ custom_domain: null });
  });

  it('reads a project’s site analytics, with the gate funnel', async () => {
    await t.app.get(AnalyticsRecorder).flush();
    const result = data(await call('get_analytics', { project_slug: 'agent-site', interval: 'day' }));
    expect(result.funnel).toMatchObject({ gateType: 'email', emailsCaptured: 1, unlocks: 1 });
    expect(result.totals.requests).toBeGreaterThan(0);
    const bad = await call('get_analytics', { project_slug: 'agent-site', from: '2026-11-10', to: '2026-11-01' });
    expect(bad.isError).toBe(true);
  });

  it('reports failures to the agent as tool errors with the API’s message', async () => {
    const invalid = await call('deploy_files', { project_slug: 'Not A Slug', files: [{ path: 'a', content: 'a' }] });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0].text).toMatch(/project/);
    const unknown = await call('promote_deployment', { project_slug: 'agent-folder', version: 42 });
    expect(unknown).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: The project has no deployment with version 42' }] });
    const api = await call('deploy_files', { project_slug: 'agent-site', files: [{ path: '../escape', content: 'x' }] });
    expect(api.isError).toBe(true);
    expect(api.content[0].text).toMatch(/^statichost API error \(HTTP 400, invalid_path\): /);
    const missing = await call('list_deployments', { project_slug: 'nobody-has-this' });
    expect(missing.content[0].text).toContain('No project "nobody-has-this"');
  });
});
