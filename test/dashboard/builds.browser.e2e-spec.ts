/// <reference lib="dom" />
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * The site's build waits until the test creates the file RELEASE_FILE names (an
 * environment variable set in the dashboard): its first lines are in the log while the
 * build still runs, so the page can only show them if the log streams.
 */
const BUILD_JS = `
const fs = require('node:fs');
console.log('build: waiting for the test to release it');
console.log('build: the secret is ' + process.env.SECRET_TOKEN);
const wait = () => {
  if (!fs.existsSync(process.env.RELEASE_FILE)) return setTimeout(wait, 100);
  console.log('build: released');
  fs.mkdirSync('dist', { recursive: true });
  fs.writeFileSync('dist/index.html', '<h1>Built from Git</h1>');
};
wait();
`;
const SECRET = 'hunter2-dashboard-secret';

describe('Builds in the dashboard: connect a repository, build, follow the log, cancel (e2e, real browser, process runner)', () => {
  let t: TestApp;
  let git: GitServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let owner: UserSession;
  let projectId: string;
  let work: string;
  let releaseFile: string;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  const repoToken = 'git-token-for-the-dashboard';
  const base = () => `http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/projects/${projectId}`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    git = await startGitServer();
    git.createRepo(
      'dash-site',
      { 'package.json': JSON.stringify({ name: 'dash-site', private: true, scripts: { build: 'node build.js' } }), 'build.js': BUILD_JS },
      { token: repoToken },
    );
    t = await startTestApp({ env: { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    browser = await launchBrowser();
    work = await mkdtemp(join(tmpdir(), 'statichost-dash-builds-'));
    releaseFile = join(work, 'release');
    owner = await registerUser(t, { name: 'Bo Builder' });
    await verifyEmail(t, owner);
    projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'built-site' }).expect(201)).body.id;

    ({ context, page } = await phonePage(browser.browser, errors, { timeout: 20_000 }));
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await git?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });
  afterEach(() => expect(errors).toEqual([]));

  const buildRows = () => page.getByRole('region', { name: 'Builds' }).getByRole('row');
  const log = () => page.getByLabel('Build log');
  const heading = () => page.getByRole('heading', { name: /^Build of main/ });

  it('the Builds tab of a project without a repository says how to connect one', async () => {
    await page.goto(`${base()}/builds`);
    await page.getByText('No repository connected').waitFor();
    await page.getByRole('link', { name: 'Connect a Git repository' }).click();
    await page.getByRole('heading', { name: 'Git repository' }).waitFor();
    await expectAccessible(page, 'settings-git-empty');
  });

  it('connects a private repository in the settings form: the token is write-only, the webhook URL has a copy button', async () => {
    const form = page.getByRole('form', { name: 'Git repository' });
    await form.getByLabel('Repository URL').fill(git.url('dash-site'));
    await form.getByLabel('Production branch').fill('main');
    await form.getByLabel('Install command').fill('node --version');
    await form.getByLabel('Build command').fill('node build.js');
    await form.getByLabel('Output directory').fill('dist');
    expect(await form.getByLabel('Access token').getAttribute('type')).toBe('password');
    await form.getByLabel('Access token').fill(repoToken);
    await form.getByRole('button', { name: 'Connect repository' }).click();
    await page.getByRole('status').getByText('Repository saved.').waitFor();

    const saved = (await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(200)).body as { webhookUrl: string; hasAccessToken: boolean };
    expect(saved.hasAccessToken).toBe(true);
    expect(saved.webhookUrl).toMatch(new RegExp(`/hooks/git/${projectId}$`));
    const webhook = page.getByRole('region', { name: 'Webhook' });
    await webhook.getByText(saved.webhookUrl).waitFor();
    await webhook.getByRole('button', { name: `Copy webhook URL: ${saved.webhookUrl}` }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(saved.webhookUrl);
    // The stored token is never sent back: the field is empty and says one is stored.
    expect(await form.getByLabel('Access token').inputValue()).toBe('');
    expect(await form.getByLabel('Access token').getAttribute('placeholder')).toBe('stored — replace');
    expect(await page.content()).not.toContain(repoToken);
    await expectAccessible(page, 'settings-git-connected');
  });

  it('adds environment variables whose values are never shown again', async () => {
    const form = page.getByRole('form', { name: 'Add an environment variable' });
    for (const [name, value] of [
      ['RELEASE_FILE', releaseFile],
      ['SECRET_TOKEN', SECRET],
    ]) {
      await form.getByLabel('Variable name').fill(name);
      expect(await form.getByLabel('Value').getAttribute('type')).toBe('password');
      await form.getByLabel('Value').fill(value);
      await form.getByRole('button', { name: 'Add variable' }).click();
      await form.getByRole('status').getByText(`${name} saved.`).waitFor();
      expect(await form.getByLabel('Value').inputValue()).toBe('');
    }
    const table = page.getByRole('region', { name: 'Environment variables' });
    await table.getByRole('row', { name: /SECRET_TOKEN production, preview/ }).waitFor();
    await table.getByRole('row', { name: /RELEASE_FILE production, preview/ }).waitFor();
    await page.reload();
    await table.getByRole('row', { name: /SECRET_TOKEN/ }).waitFor();
    expect(await page.content()).not.toContain(SECRET);
    expect(await page.content()).not.toContain(releaseFile);
    await expectAccessible(page, 'settings-env');
  });

  it('starts a build with "Build now", streams its log while it runs, and cancels it from the list', async () => {
    await page.goto(`${base()}/builds`);
    await page.getByRole('button', { name: 'Build now' }).click();
    await heading().waitFor();
    expect(page.url()).toMatch(/\/builds\/bld_[A-Za-z0-9_-]+$/);
    // Written by the build before it waits: on the page while the build still runs.
    await log().getByText('build: waiting for the test to release it').waitFor();
    await heading().getByText('running').waitFor();
    expect(await log().textContent()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z \[[a-z]+\] /m);
    expect(await log().textContent()).not.toContain(SECRET);
    await page.getByRole('button', { name: 'Cancel build' }).waitFor();
    await expectAccessible(page, 'build-running');

    await page.getByRole('link', { name: '← All builds' }).click();
    await buildRows().filter({ hasText: 'running' }).waitFor();
    await expectAccessible(page, 'builds-running');
    await page.getByRole('button', { name: 'Cancel the build of main' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel build' }).click();
    await buildRows().filter({ hasText: 'canceled' }).waitFor();
  });

  it('"Redeploy" builds the same ref again; the page follows it to ready, then shows its address and deployment', async () => {
    await buildRows().filter({ hasText: 'canceled' }).getByRole('link', { name: 'main' }).click();
    await heading().getByText('canceled').waitFor();
    await log().getByText('build: waiting for the test to release it').waitFor();
    await page.getByRole('button', { name: 'Redeploy' }).click();
    await heading()
      .getByText(/queued|running/)
      .waitFor();
    await log().getByText('build: waiting for the test to release it').waitFor();
    await writeFile(releaseFile, 'go');
    await log().getByText('build: released').waitFor();
    // The log's end refreshes the record: ready, with where it is served.
    await heading().getByText('ready').waitFor();
    await page.getByText('End of the log.').waitFor();
    expect(await log().textContent()).not.toContain(SECRET);
    expect(await log().textContent()).toContain('***');
    await page.getByRole('definition').getByRole('link', { name: /^dep_/ }).waitFor();
    expect(
      await page
        .getByRole('definition')
        .getByRole('link', { name: /^https?:\/\// })
        .getAttribute('href'),
    ).toMatch(/^http:\/\/built-site\./);
    await expectAccessible(page, 'build-ready');
    const live = await t.http().get(`/projects/${projectId}`).set(asUser(owner)).expect(200);
    expect(live.body.liveVersion).toBe(1);
  });

  it('the list follows a running build to ready on its own, and stops asking once none is active', async () => {
    await rm(releaseFile, { force: true });
    await page.goto(`${base()}/builds`);
    await page.getByRole('button', { name: 'Build now' }).click();
    await heading().waitFor();
    await log().getByText('build: waiting for the test to release it').waitFor();
    await page.getByRole('link', { name: '← All builds' }).click();
    await buildRows().filter({ hasText: 'running' }).waitFor();
    await writeFile(releaseFile, 'go');
    // No reload: the list asks again while a build is active.
    await buildRows().nth(1).filter({ hasText: 'ready' }).waitFor();
    expect(await buildRows().count()).toBe(4);
    await buildRows().filter({ hasText: 'running' }).waitFor({ state: 'detached' });

    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (new URL(r.url()).pathname === `/projects/${projectId}/builds`) asked.push(r.url());
    };
    page.on('request', onRequest);
    await page.waitForTimeout(5000);
    page.off('request', onRequest);
    expect(asked).toEqual([]);
  });

  it('disconnects the repository after confirming', async () => {
    await page.goto(`${base()}/settings`);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Connect repository' }).waitFor();
    await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(404);
  });
});

/**
 * A server with no runner: BUILD_RUNNER unset and neither podman nor docker on PATH (the
 * runner is chosen once, on first use, from PATH: the test hides both while the app
 * starts and answers its first build).
 */
describe('Builds in the dashboard on a server that cannot run them (e2e, real browser)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let owner: UserSession;
  let projectId: string;
  let context: BrowserContext;
  const errors: string[] = [];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    browser = await launchBrowser();
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      t = await startTestApp({ env: { BUILD_RUNNER: undefined, GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
      owner = await registerUser(t, { name: 'No Runner' });
      await verifyEmail(t, owner);
      projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'unbuilt-site' }).expect(201)).body.id;
      await t
        .http()
        .put(`/projects/${projectId}/git`)
        .set(asUser(owner))
        .send({ repository: 'http://127.0.0.1:9/unbuilt.git', productionBranch: 'main' })
        .expect(200);
      const refused = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({}).expect(503);
      expect(refused.body.code).toBe('builds_unavailable');
    } finally {
      process.env.PATH = path;
    }
    context = await browser.browser.newContext({ viewport: { width: 375, height: 800 } });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('"Build now" answers with what to install, then stays disabled', async () => {
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
    await page.goto(`http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/projects/${projectId}/builds`);
    await page.getByRole('button', { name: 'Build now' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Builds are unavailable on this server').waitFor();
    expect(await alert.textContent()).toMatch(/install podman or docker/);
    expect(await page.getByRole('button', { name: 'Build now' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'builds-unavailable');
    expect(errors).toEqual([]);
  });
});
