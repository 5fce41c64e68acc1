/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { fetchSite } from '../helpers/sites';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/** The site's build: its page names the branch it was built from (BRANCH_PAGE, a file in the branch). */
const BUILD_JS = `
const fs = require('node:fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', '<h1>' + fs.readFileSync('page.txt', 'utf8').trim() + '</h1>');
console.log('built');
`;

type BuildRecord = { id: string; status: string; url: string | null; commitSha: string | null; trigger: string };

describe('Previews, build triggers and the webhook settings in the dashboard (e2e, real browser at 375 px, process runner)', () => {
  let t: TestApp;
  let git: GitServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let owner: UserSession;
  let projectId: string;
  let context: BrowserContext;
  let page: Page;
  let featureSha: string;
  let build: BuildRecord;
  const errors: string[] = [];
  const base = () => `http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/projects/${projectId}`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    git = await startGitServer();
    git.createRepo('preview-site', { 'build.js': BUILD_JS, 'page.txt': 'Production page' });
    featureSha = git.commit('preview-site', { 'page.txt': 'Feature page' }, { branch: 'feature/new-header', message: 'Add the new header\n\nWith a body.' });
    t = await startTestApp({ env: { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Pia Preview' });
    await verifyEmail(t, owner);
    projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'preview-site' }).expect(201)).body.id;
    await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({
        repository: git.url('preview-site'),
        productionBranch: 'main',
        installCommand: 'node --version',
        buildCommand: 'node build.js',
        outputDirectory: 'dist',
      })
      .expect(200);

    ({ context, page } = await phonePage(browser.browser, errors, { timeout: 20_000 }));
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await git?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  const previewRows = () => page.getByRole('region', { name: 'Previews' }).getByRole('row');
  const webhook = () => page.getByRole('region', { name: 'Webhook' });

  it('the Previews tab explains how previews appear while there is none', async () => {
    await page.goto(base());
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Previews' }).click();
    await page.getByRole('heading', { name: 'Previews' }).waitFor();
    await page.getByText('No previews yet', { exact: true }).waitFor();
    await page.getByText(/^Once the repository’s webhook is set/).waitFor();
    expect(await page.getByRole('link', { name: 'Webhook settings' }).getAttribute('href')).toMatch(/\/settings#webhook$/);
    await expectAccessible(page, 'previews-empty');
  });

  it('a ready build of a branch is listed: its address (a link that serves the branch), short commit, build and age', async () => {
    const started = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({ ref: 'feature/new-header' }).expect(202);
    build = await eventually(async () => {
      const b = (await t.http().get(`/projects/${projectId}/builds/${started.body.id}`).set(asUser(owner)).expect(200)).body as BuildRecord;
      expect(b.status).toBe('ready');
      return b;
    }, 60_000);
    expect(build.url).toBeTruthy();

    await page.reload();
    const row = previewRows().filter({ hasText: 'feature/new-header' });
    await row.waitFor();
    const link = row.getByRole('link', { name: build.url! });
    expect(await link.getAttribute('href')).toBe(build.url);
    expect(await row.textContent()).toContain(featureSha.slice(0, 7));
    expect(await row.textContent()).not.toContain(featureSha.slice(0, 8));
    await row.getByText(/now|seconds? ago|minutes? ago/).waitFor();
    expect((await fetchSite(t, build.url!)).body).toContain('<h1>Feature page</h1>');
    await expectAccessible(page, 'previews-listed');

    await row.getByRole('link', { name: 'Build of feature/new-header' }).click();
    await page.getByRole('heading', { name: /^Build of feature\/new-header/ }).waitFor();
    expect(page.url()).toMatch(new RegExp(`/builds/${build.id}$`));
  });

  it('the build page and the builds list show the trigger and the commit (short sha and title)', async () => {
    await page.goto(`${base()}/builds/${build.id}`);
    const facts = page.locator('dl.facts');
    await facts.getByText('Add the new header').waitFor();
    expect(await facts.textContent()).toContain(featureSha.slice(0, 7));
    expect(await facts.textContent()).not.toContain('With a body.');
    const trigger = facts.locator('div').filter({ has: page.getByRole('term').getByText('Trigger', { exact: true }) });
    expect((await trigger.getByRole('definition').textContent())?.trim()).toBe('manual');
    await expectAccessible(page, 'build-trigger');

    await page.getByRole('link', { name: '← All builds' }).click();
    const row = page.getByRole('region', { name: 'Builds' }).getByRole('row').filter({ hasText: 'feature/new-header' });
    await row.waitFor();
    // At 375 px too: the trigger is under the branch, not in a column that narrow screens hide.
    expect(await row.getByText('manual', { exact: true }).isVisible()).toBe(true);
    expect(await row.textContent()).toContain(`${featureSha.slice(0, 7)} Add the new header`);
    await expectAccessible(page, 'builds-trigger');
  });

  it('creates the webhook secret and shows it once, with a copy button; rotating warns, and the new one replaces it', async () => {
    await page.goto(`${base()}/settings`);
    await webhook().getByText('No webhook secret yet').waitFor();
    const saved = (await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(200)).body as { webhookUrl: string; hasWebhookSecret: boolean };
    expect(saved.hasWebhookSecret).toBe(false);
    await webhook()
      .getByRole('button', { name: `Copy webhook URL: ${saved.webhookUrl}` })
      .click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(saved.webhookUrl);
    // A repository on a host that names no forge: every forge's steps.
    for (const forge of ['On GitHub', 'On GitLab', 'On Gitea or Forgejo']) await webhook().getByRole('heading', { name: forge }).waitFor();
    await expectAccessible(page, 'webhook-no-secret');

    await webhook().getByRole('button', { name: 'Create secret' }).click();
    const shown = webhook().getByLabel('Webhook secret', { exact: true });
    await shown.waitFor();
    const first = (await shown.textContent())!;
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await webhook()
      .getByRole('button', { name: /^Copy secret/ })
      .click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);
    expect((await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(200)).body.hasWebhookSecret).toBe(true);
    await expectAccessible(page, 'webhook-secret-shown');

    // Shown once: after a reload the page says one is set and holds it nowhere.
    await page.reload();
    await webhook().getByText('A webhook secret is set').waitFor();
    expect(await page.content()).not.toContain(first);

    await webhook().getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The old secret stops working at once').waitFor();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await webhook().getByText('The old secret stopped working').waitFor();
    const second = (await webhook().getByLabel('Webhook secret', { exact: true }).textContent())!;
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    await expectAccessible(page, 'webhook-secret-rotated');
  });

  it('the fork pull request toggle and the forge select persist, and the setup steps follow the forge', async () => {
    await page.goto(`${base()}/settings`);
    const form = page.getByRole('form', { name: 'Git repository' });
    const forks = form.getByRole('checkbox', { name: 'Build pull requests from forks' });
    expect(await forks.isChecked()).toBe(false);
    expect(await forks.getAttribute('aria-describedby')).toBeTruthy();
    await form.getByText('without the project’s environment variables').waitFor();
    expect(await form.getByLabel('Forge').inputValue()).toBe('');
    await forks.check();
    await form.getByLabel('Forge').selectOption('gitlab');
    await form.getByRole('button', { name: 'Save repository' }).click();
    await page.getByRole('status').getByText('Repository saved.').waitFor();
    const saved = (await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(200)).body;
    expect({ buildForkPullRequests: saved.buildForkPullRequests, forge: saved.forge }).toEqual({ buildForkPullRequests: true, forge: 'gitlab' });

    await page.reload();
    expect(await form.getByRole('checkbox', { name: 'Build pull requests from forks' }).isChecked()).toBe(true);
    expect(await form.getByLabel('Forge').inputValue()).toBe('gitlab');
    await webhook().getByRole('heading', { name: 'On GitLab' }).waitFor();
    await webhook()
      .getByText(/Secret token: the webhook secret/)
      .waitFor();
    expect(await webhook().getByRole('heading', { name: 'On GitHub' }).count()).toBe(0);

    // Saving another field leaves both as they are; Auto sends null.
    await form.getByLabel('Build command').fill('node build.js ');
    await form.getByRole('button', { name: 'Save repository' }).click();
    await page.getByRole('status').getByText('Repository saved.').waitFor();
    const kept = (await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(200)).body;
    expect({ buildForkPullRequests: kept.buildForkPullRequests, forge: kept.forge }).toEqual({ buildForkPullRequests: true, forge: 'gitlab' });
    await page.reload();
    await form.getByRole('checkbox', { name: 'Build pull requests from forks' }).uncheck();
    await form.getByLabel('Forge').selectOption('');
    await form.getByRole('button', { name: 'Save repository' }).click();
    await page.getByRole('status').getByText('Repository saved.').waitFor();
    const reset = (await t.http().get(`/projects/${projectId}/git`).set(asUser(owner)).expect(200)).body;
    expect({ buildForkPullRequests: reset.buildForkPullRequests, forge: reset.forge }).toEqual({ buildForkPullRequests: false, forge: null });
    await expectAccessible(page, 'git-settings-forks');
  });
});
