/// <reference lib="dom" />
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { runCli } from '../clients/cli-process';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { asUser, registerUser, uniqueEmail, type UserSession } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * Issue 33, the first run: a new account lands on "Publish your first site", publishes a
 * folder (or deploys with the CLI lines the page shows, or starts from Git) without reading
 * the docs, and the page ends on the live address. The lists of a fresh workspace say what
 * they are for and offer what fills them; the deploy form shows the free plan's limits.
 */
describe('The first run: from sign-up to a live site, in a real browser at 375 px (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let home: string;
  const errors: string[] = [];
  const password = 'correct horse battery staple';
  const base = () => `http://127.0.0.1:${t.port}/app`;

  beforeAll(async () => {
    buildWeb({ quiet: true });
    // The built-in plan table (free: 7-day TTL, 10 deploys a month), not the suites' unlimited free plan.
    t = await startTestApp({ env: { PLANS_JSON: undefined } });
    browser = await launchBrowser();
    home = await mkdtemp(join(tmpdir(), 'statichost-onboarding-'));
    // A folder named like a site, as a user's would be: the site is named after it.
    await mkdir(join(home, 'my-portfolio', 'css'), { recursive: true });
    await writeFile(
      join(home, 'my-portfolio', 'index.html'),
      '<!doctype html><html lang="en"><head><title>Portfolio</title><link rel="stylesheet" href="/css/site.css"></head><body><h1 id="hello">My first site</h1></body></html>',
    );
    await writeFile(join(home, 'my-portfolio', 'css', 'site.css'), 'h1 { color: teal }');
    // What `npx statichost deploy ./dist` deploys, run from `home`.
    await mkdir(join(home, 'dist'));
    await writeFile(join(home, 'dist', 'index.html'), '<!doctype html><html lang="en"><title>CLI</title><h1 id="hello">Deployed with the CLI</h1></html>');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(errors).toEqual([]);
    errors.length = 0;
  });

  async function withPage(run: (page: Page, context: BrowserContext) => Promise<void>): Promise<void> {
    const { context, page } = await phonePage(browser.browser, errors);
    try {
      await run(page, context);
    } finally {
      await context.close();
    }
  }

  /** The page a site's address serves, in the same browser. */
  async function served(context: BrowserContext, url: string): Promise<string | null> {
    const sitePage = await context.newPage();
    try {
      await sitePage.goto(url);
      return await sitePage.locator('#hello').textContent();
    } finally {
      await sitePage.close();
    }
  }

  it('signs up, lands on “Publish your first site”, publishes a folder, and ends on the live address', async () => {
    await withPage(async (page, context) => {
      await page.goto(`${base()}/register`);
      await page.getByLabel('Name').fill('Nina New');
      await page.getByLabel('Email').fill(uniqueEmail('onboarding'));
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();

      await page.getByRole('heading', { name: 'Publish your first site', level: 1 }).waitFor();
      expect(page.url()).toMatch(/\/app\/w\/ws_[0-9a-z]+\/get-started$/);
      await page.getByRole('status').filter({ hasText: 'Waiting for the first deployment' }).waitFor();
      await expectAccessible(page, 'onboarding');
      await page.screenshot({ path: join(ARTIFACTS, 'onboarding.png'), fullPage: true });

      // The folder input is the label's "Choose a folder"; the site takes the folder's name.
      await page.getByLabel('Choose a folder').setInputFiles(join(home, 'my-portfolio'));
      await page.getByText('2 files').waitFor();
      expect(await page.getByLabel('Site name').inputValue()).toBe('my-portfolio');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();

      const live = page.getByRole('region', { name: 'Your site is live' });
      await live.waitFor();
      const address = await live.getByRole('link', { name: /my-portfolio/ }).getAttribute('href');
      expect(address).toMatch(/^http:\/\/my-portfolio\.localhost:\d+$/);
      expect(await served(context, address!)).toBe('My first site');
      await expectAccessible(page, 'onboarding-live');
      await page.screenshot({ path: join(ARTIFACTS, 'onboarding-live.png'), fullPage: true });

      // Its button leads to the project, whose deploy form counts the deploy just made against the plan.
      await live.getByRole('link', { name: 'Open the project' }).click();
      await page.getByRole('link', { name: 'v1', exact: true }).waitFor();
      await page.goto(`${page.url()}/deploy`);
      await page.getByText('1 of 10 deploys this month.').waitFor();
    });
  });

  it('shows this server’s CLI lines; the site deployed with them goes live while the page is open, and the page notices', async () => {
    const user = await registerUser(t, { name: 'Cleo Cli' });
    await withPage(async (page, context) => {
      // Signing in (not signing up) with no project yet lands here too.
      await signInThroughDashboard(page, t.baseUrl, user);
      await page.getByRole('heading', { name: 'Publish your first site', level: 1 }).waitFor();
      await page.getByLabel('Site name').fill('CLI site');
      const cli = page.getByRole('region', { name: 'Deploy from the command line' });
      await cli.getByText('--project cli-site').waitFor();
      const lines = await cli.locator('code').allTextContents();
      expect(lines).toEqual([`npx statichost login --api-url ${t.baseUrl}`, 'npx statichost deploy ./dist --project cli-site']);
      // A copy button per line, named after what it copies.
      for (const line of lines) await cli.getByRole('button', { name: `Copy: ${line}` }).waitFor();
      // No reload from here on: the page finds the live site by itself.
      await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

      // The lines exactly as shown (only the email, asked on a terminal, and the password given as the CLI allows).
      const env = { HOME: home, STATICHOST_CONFIG: join(home, 'statichost.json'), STATICHOST_PASSWORD: user.password };
      const [login, deploy] = lines.map((line) => line.split(' '));
      expect(login.slice(0, 2)).toEqual(['npx', 'statichost']);
      const signedIn = await runCli([...login.slice(2), '--email', user.email], env, { cwd: home });
      expect(signedIn).toMatchObject({ code: 0 });
      const deployed = await runCli(deploy.slice(2), env, { cwd: home });
      expect(deployed).toMatchObject({ code: 0 });

      const live = page.getByRole('region', { name: 'Your site is live' });
      await live.waitFor();
      expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
      const address = await live.getByRole('link', { name: /cli-site/ }).getAttribute('href');
      expect(address).toMatch(/^http:\/\/cli-site\.localhost:\d+$/);
      expect(await served(context, address!)).toBe('Deployed with the CLI');
      // Live: the page stops saying it waits.
      expect(await page.getByText('Waiting for the first deployment').count()).toBe(0);
    });
  });

  it('connects a Git repository in one click: the project is created and its repository field is in focus', async () => {
    const user = await registerUser(t, { name: 'Gil Git' });
    await withPage(async (page) => {
      await signInThroughDashboard(page, t.baseUrl, user);
      await page.getByRole('heading', { name: 'Publish your first site', level: 1 }).waitFor();
      // Unnamed, it says what is missing where the user acted.
      await page.getByRole('button', { name: 'Create the project and connect a repository' }).click();
      await page.getByRole('alert').filter({ hasText: 'Name the site first' }).waitFor();
      await page.getByLabel('Site name').fill('Git site');
      await page.getByRole('button', { name: 'Create the project and connect a repository' }).click();
      await page.waitForURL(/\/projects\/proj_[0-9A-Za-z_-]+\/settings#git$/);
      const repository = page.getByLabel('Repository URL');
      await repository.waitFor();
      expect(await repository.evaluate((el) => el === document.activeElement)).toBe(true);
      const projects = await t.http().get('/projects').set(asUser(user)).expect(200);
      expect((projects.body.data as { slug: string; liveVersion: number | null }[]).map((p) => [p.slug, p.liveVersion])).toEqual([['git-site', null]]);
    });
  });

  describe('a fresh workspace', () => {
    let user: UserSession;
    let project: { id: string; url: string };
    beforeAll(async () => {
      user = await registerUser(t, { name: 'Emma Empty' });
      // One project, never deployed: its own lists are empty too.
      const created = await t.http().post('/projects').set(asUser(user)).send({ name: 'Empty Site' }).expect(201);
      const view = await t.http().get(`/projects/${created.body.id}`).set(asUser(user)).expect(200);
      project = { id: view.body.id, url: view.body.url };
    });

    it('each list says what it is for and offers the action that fills it', async () => {
      const ws = `/w/${user.workspaceId}`;
      const p = `${ws}/projects/${project.id}`;
      /** Each list: its title, a word of its sentence, and its action (a link to where, or a button that focuses a form). */
      const lists: { path: string; title: string; says: RegExp; link?: [string, RegExp]; focuses?: [string, string] }[] = [
        {
          path: `${ws}/tokens`,
          title: 'No API tokens yet',
          says: /lets the CLI, a CI job or a script deploy/,
          focuses: ['Create a token', 'Create an API token'],
        },
        { path: `${ws}/webhooks`, title: 'No webhooks yet', says: /sends a signed request to your endpoint/, focuses: ['Add an endpoint', 'Add a webhook'] },
        { path: `${ws}/members`, title: 'Just you so far', says: /Invite the people you work with/, focuses: ['Invite someone', 'Invite someone'] },
        {
          path: `${ws}/leads`,
          title: 'No leads yet',
          says: /^A lead is the email address a visitor gives/,
          link: ['Choose a project to gate', /\/w\/ws_\w+\/projects$/],
        },
        { path: '/invitations', title: 'No pending invitations', says: /waits here for you to accept/, link: ['Back to your workspace', /\/app\/?$/] },
        { path: p, title: 'Nothing deployed yet', says: /Each upload of the site is a version/, link: ['Deploy a folder', /\/deploy$/] },
        { path: `${p}/builds`, title: 'No repository connected', says: /build command on each push/, link: ['Connect a Git repository', /\/settings#git$/] },
        { path: `${p}/previews`, title: 'No previews yet', says: /gives it a preview address here/, link: ['Webhook settings', /\/settings#webhook$/] },
        { path: `${p}/leads`, title: 'No leads yet', says: /^A lead is the email address a visitor gives/, link: ['Set up the email gate', /\/settings$/] },
        { path: `${p}/forms`, title: 'No forms yet', says: /HTML forms collect their submissions here/, link: ['Deploy the site again', /\/deploy$/] },
        {
          path: `${p}/analytics`,
          title: 'No traffic yet',
          says: /once the site is visited/,
          link: ['Visit the site', new RegExp(`^${project.url.replace(/[.]/g, '\\.')}$`)],
        },
      ];
      await withPage(async (page) => {
        await signInThroughDashboard(page, t.baseUrl, user);
        for (const list of lists) {
          await page.goto(`${base()}${list.path}`);
          await page.getByText(list.title, { exact: true }).waitFor();
          await page.getByText(list.says).waitFor();
          if (list.link) {
            const [name, href] = list.link;
            expect({ list: list.title, href: await page.getByRole('link', { name, exact: true }).getAttribute('href') }).toEqual({
              list: list.title,
              href: expect.stringMatching(href),
            });
          }
          if (list.focuses) {
            const [button, form] = list.focuses;
            await page.getByRole('button', { name: button, exact: true }).click();
            expect({ list: list.title, focus: await page.evaluate(() => document.activeElement?.closest('form')?.getAttribute('aria-label')) }).toEqual({
              list: list.title,
              focus: form,
            });
          }
          await expectAccessible(page, `empty: ${list.path}`);
        }
      });
    });

    it('the deploy form shows the free plan’s limits where they bite: the 7-day TTL with the way to keep it longer, and the month’s deploys', async () => {
      await withPage(async (page) => {
        await signInThroughDashboard(page, t.baseUrl, user);
        await page.goto(`${base()}/w/${user.workspaceId}/projects/${project.id}/deploy`);
        await page.getByText('Expires in 7 days — keep it longer on Pro.').waitFor();
        expect(await page.getByRole('link', { name: 'keep it longer on Pro' }).getAttribute('href')).toBe(`/app/w/${user.workspaceId}/billing`);
        await page.getByText('0 of 10 deploys this month.').waitFor();
        await expectAccessible(page, 'deploy: free plan limits');
        // A longer TTL typed in is refused by the plan: said before the upload, not after.
        await page.getByLabel('Time to live').fill('30d');
        await page.getByText('The free plan keeps a deployment 7 days at most, so 30d will be refused — keep it longer on Pro.').waitFor();
        await page.getByLabel('Time to live').fill('2d');
        await page.getByText('Expires in 2 days — keep it longer on Pro.').waitFor();
      });
    });
  });
});
