import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import AxeBuilder from '@axe-core/playwright';

import { runCli } from '../clients/cli-process';
import { NO_FREE_QUOTAS, startTestApp, type TestApp } from '../helpers/app';
import { expectNoHorizontalScroll, launchBrowser } from '../helpers/browser';
import { bearer, createApiToken, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

// The CLI cases start processes on a loaded machine.
jest.setTimeout(60_000);

const LAZY_KEYS = ['expires_at', 'id', 'size_bytes', 'url', 'version'];

/**
 * Issue 34: a rule that deploys but will never match comes back as a warning on the
 * deployment record (get, list, the per-project deploy's answer, promote), in the CLI's
 * output and in the dashboard; the lazy deploy's 201 keeps its five keys. This instance
 * has no GeoIP database, so a `Country=` rule is one of those.
 */
describe('Deploy warnings of _redirects and _headers (e2e)', () => {
  let t: TestApp;
  let token: string;
  let session: UserSession;

  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: NO_FREE_QUOTAS, GEOIP_DATABASE: undefined } });
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(() => t.close());

  const projectOf = async (slug: string): Promise<string> => {
    const list = await t.http().get('/projects').query({ limit: 100 }).set(bearer(token)).expect(200);
    return (list.body.data as { id: string; slug: string }[]).find((p) => p.slug === slug)!.id;
  };
  const record = async (slug: string, deploymentId: string) => {
    const projectId = await projectOf(slug);
    return (await t.http().get(`/projects/${projectId}/deployments/${deploymentId}`).set(bearer(token)).expect(200)).body;
  };

  it('a Country= rule without GEOIP_DATABASE deploys (the 201 keeps its five keys) with a warning naming the line on the record', async () => {
    const deployed = await deploySite(t, token, 'geo-less', [
      { path: 'index.html', content: 'home' },
      { path: 'fr/index.html', content: 'bonjour' },
      { path: '_redirects', content: '# by country\n/old /fr/ 301\n/ /fr/ 302 Country=fr,be\n' },
    ]);
    expect(Object.keys(deployed).sort()).toEqual(LAZY_KEYS);
    const found = await record('geo-less', deployed.id);
    expect(found.warnings).toEqual([{ file: '_redirects', line: 3, message: expect.stringMatching(/geoip/i) }]);
    // It deployed and never matches: the visitor gets the page, not the redirect.
    expect((await site(t, 'geo-less').get('/').expect(200)).text).toBe('home');
    expect((await site(t, 'geo-less').get('/old').expect(301)).headers.location).toMatch(/\/fr\/$/);
  });

  it('a source repeated with the same conditions is shadowed by the first: deployed, the first applies, the later line warned', async () => {
    const deployed = await deploySite(t, token, 'shadowed', [
      { path: 'index.html', content: 'home' },
      { path: '_redirects', content: '/a /first 301\n/b /other 302\n/a /second 302\n' },
    ]);
    const found = await record('shadowed', deployed.id);
    expect(found.warnings).toEqual([{ file: '_redirects', line: 3, message: expect.stringMatching(/shadowed by line 1/) }]);
    expect((await site(t, 'shadowed').get('/a').expect(301)).headers.location).toMatch(/\/first$/);
  });

  it('the warnings are on the per-project deploy answer, the list and promote; [] when there are none', async () => {
    await deploySite(t, token, 'per-project', [{ path: 'index.html', content: 'v1' }]);
    const projectId = await projectOf('per-project');
    const deployTo = (files: object[]) => t.http().post(`/projects/${projectId}/deployments`).set(bearer(token)).send({ files }).expect(201);
    const clean = (await deployTo([{ path: 'index.html', content: 'v2' }])).body;
    expect(clean.warnings).toEqual([]);
    const created = (
      await deployTo([
        { path: 'index.html', content: 'v3' },
        { path: '_redirects', content: '/x /y 301\n/x /z 301\n' },
      ])
    ).body;
    const expected = [{ file: '_redirects', line: 2, message: expect.stringMatching(/shadowed by line 1/) }];
    expect(created.warnings).toEqual(expected);
    const list = (await t.http().get(`/projects/${projectId}/deployments`).set(bearer(token)).expect(200)).body.data;
    expect(list.find((d: { id: string }) => d.id === created.id).warnings).toEqual(expected);
    expect(list.find((d: { id: string }) => d.id === clean.id).warnings).toEqual([]);
    const promoted = (await t.http().patch(`/projects/${projectId}/deployments/${clean.id}/promote`).set(bearer(token)).expect(200)).body;
    expect(promoted.warnings).toEqual([]);
  });

  describe('the CLI', () => {
    let home: string;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'statichost-warnings-'));
      await mkdir(join(home, 'site'));
      await writeFile(join(home, 'site', 'index.html'), '<h1>cli</h1>');
      await writeFile(join(home, 'site', '_redirects'), '/a /first 301\n/a /second 301\n/ /fr/ 302 Country=fr\n');
    });
    afterAll(() => rm(home, { recursive: true, force: true }));
    const env = () => ({
      HOME: home,
      STATICHOST_CONFIG: join(home, 'config.json'),
      STATICHOST_API_URL: `http://localhost:${t.port}`,
      STATICHOST_TOKEN: token,
    });

    it('statichost deploy prints each warning, naming the file and line; --json carries them', async () => {
      const res = await runCli(['deploy', join(home, 'site'), '--project', 'cli-warnings'], env());
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('Deployed version 1');
      expect(res.stderr).toMatch(/^Warning: _redirects line 2: .*shadowed by line 1/m);
      expect(res.stderr).toMatch(/^Warning: _redirects line 3: .*geoip/im);
      const json = await runCli(['--json', 'deploy', join(home, 'site'), '--project', 'cli-warnings'], env());
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({
        version: 2,
        warnings: [
          { file: '_redirects', line: 2, message: expect.stringMatching(/shadowed by line 1/) },
          { file: '_redirects', line: 3, message: expect.stringMatching(/geoip/i) },
        ],
      });
    });

    it('a deploy without rule files asks for no warnings and prints none', async () => {
      await mkdir(join(home, 'plain'));
      await writeFile(join(home, 'plain', 'index.html'), '<h1>plain</h1>');
      const res = await runCli(['--json', 'deploy', join(home, 'plain'), '--project', 'cli-plain'], env());
      expect(res.code).toBe(0);
      expect(res.stderr).not.toContain('Warning:');
      expect(JSON.parse(res.stdout).warnings).toEqual([]);
    });
  });

  it('the dashboard shows them on the version’s page and counts them in the list (real browser, 375 px)', async () => {
    buildWeb({ quiet: true });
    await verifyEmail(t, session);
    const deployed = await deploySite(t, token, 'dash-warnings', [
      { path: 'index.html', content: 'home' },
      { path: '_redirects', content: '/a /first 301\n/a /second 301\n' },
    ]);
    const projectId = await projectOf('dash-warnings');
    const browser = await launchBrowser();
    try {
      // axe needs a page of a context of its own.
      const context = await browser.browser.newContext({ viewport: { width: 375, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${t.port}/app/sign-in`);
      await page.getByLabel('Email').fill(session.email);
      await page.getByLabel('Password').fill(session.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      const project = `http://127.0.0.1:${t.port}/app/w/${session.workspaceId}/projects/${projectId}`;
      await page.goto(project);
      await page.getByRole('row', { name: /v1/ }).getByText('1 warning').waitFor();
      await page.goto(`${project}/deployments/${deployed.id}`);
      const note = page.getByRole('status').filter({ hasText: 'A rule deployed but will never apply' });
      await note.getByText(/_redirects line 2: .*shadowed by line 1/).waitFor();
      await expectNoHorizontalScroll(page, 'deployment with warnings');
      const axe = await new AxeBuilder({ page }).analyze();
      expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
