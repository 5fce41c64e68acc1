import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';

import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import type { TestApp } from './app';
import { eventually } from './eventually';
import { startGitServer } from './git-server';
import { addMember, asUser, createApiToken, registerUser, type UserSession, verifyEmail } from './identity';
import { deploySite, site } from './sites';

/**
 * One seeded workspace that shows every page of the dashboard with content, for the suites
 * and benches that visit them all (visual regression, axe at 375 px, Lighthouse). Names,
 * emails, slugs and file sizes are fixed so screenshots of two runs compare; ids, ports and
 * times are not (the visual suite normalises them). The app must run with TOUR_APP_ENV.
 */

/** What the app needs for the tour's build: a local Git server and a build runner without containers. */
export const TOUR_APP_ENV = { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true' };

export const TOUR_OWNER = { name: 'Ada Lovelace', email: 'ada@tour.example', password: 'tour password 1' };
const TOUR_VIEWER = { name: 'Grace Hopper', email: 'grace@tour.example', password: 'tour password 2' };

/** A page of the dashboard, by its path under /app, with what shows it has loaded its data. */
export interface TourPage {
  name: string;
  path: string;
  ready(page: Page): Locator;
  /** Parts whose content differs from run to run for reasons no text rewrite catches, masked in screenshots. */
  volatile?(page: Page): Locator[];
}

export interface Tour {
  owner: UserSession;
  projectId: string;
  deploymentId: string;
  buildId: string;
  /** Every page of the dashboard, signed in as the owner. */
  pages: TourPage[];
  /** Stops the Git server the build cloned from (the app is the caller's). */
  close(): Promise<void>;
}

const WEB_SRC = join(__dirname, '..', '..', 'web', 'src');

/** A page of `size` bytes exactly, so sizes read the same in every run. */
const html = (title: string, size: number) => {
  const body = `<!doctype html><title>${title}</title><h1>${title}</h1>`;
  return body + ' '.repeat(Math.max(0, size - body.length));
};

export async function seedTour(t: TestApp): Promise<Tour> {
  const git = await startGitServer();
  try {
    const owner = await registerUser(t, TOUR_OWNER);
    await verifyEmail(t, owner);
    const viewer = await registerUser(t, TOUR_VIEWER);
    await addMember(t, owner, viewer, 'viewer');
    const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read'], name: 'CI deploys' })).token;

    // Three projects: one with two versions, traffic, a repository and a build (the project
    // pages' subject), one live, one never deployed.
    await deploySite(t, token, 'docs-site', [{ path: 'index.html', content: html('Docs', 1600) }]);
    const live = await deploySite(t, token, 'docs-site', [
      { path: 'index.html', content: html('Docs', 2048) },
      { path: 'guide/index.html', content: html('Guide', 6000) },
    ]);
    await deploySite(t, token, 'marketing', [{ path: 'index.html', content: html('Marketing', 12_000) }]);
    await t.http().post('/projects').set(asUser(owner)).send({ name: 'blog' }).expect(201);
    const projects = await t.http().get('/projects').set(asUser(owner)).expect(200);
    const projectId = (projects.body.data as { id: string; slug: string }[]).find((p) => p.slug === 'docs-site')!.id;

    // Traffic, so the analytics page draws its charts rather than its empty state.
    const visitor = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' };
    for (let i = 0; i < 5; i++) await site(t, 'docs-site').get('/').set(visitor).expect(200);
    await site(t, 'docs-site').get('/guide/').set(visitor).expect(200);
    await site(t, 'docs-site').get('/missing.png').set(visitor).expect(404);
    await t.app.get(AnalyticsRecorder).flush();

    // A connected repository and a build of a branch other than production: a preview, so what is live stays v2.
    const build = 'require("fs").mkdirSync("dist",{recursive:true});require("fs").writeFileSync("dist/index.html","<h1>built</h1>");console.log("built")';
    git.createRepo('docs-site', { 'build.js': build });
    git.commit('docs-site', { 'README.md': 'a branch' }, { branch: 'feature', message: 'A feature branch' });
    await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({
        repository: git.url('docs-site'),
        productionBranch: 'main',
        installCommand: 'node --version',
        buildCommand: 'node build.js',
        outputDirectory: 'dist',
      })
      .expect(200);
    await t
      .http()
      .put(`/projects/${projectId}/env/SITE_NAME`)
      .set(asUser(owner))
      .send({ value: 'docs', targets: ['production', 'preview'] })
      .expect(200);
    const buildId = (await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({ ref: 'feature' }).expect(202)).body.id as string;
    await eventually(async () => {
      const b = await t.http().get(`/projects/${projectId}/builds/${buildId}`).set(asUser(owner)).expect(200);
      // Not jest's expect: the Lighthouse bench seeds through this helper outside jest.
      if (b.body.status !== 'ready') throw new Error(`build ${buildId} is ${b.body.status}`);
    }, 60_000);

    return { owner, projectId, deploymentId: live.id, buildId, pages: tourPages(owner, projectId, live.id, buildId), close: () => git.close() };
  } catch (err) {
    await git.close();
    throw err;
  }
}

function tourPages(owner: UserSession, projectId: string, deploymentId: string, buildId: string): TourPage[] {
  const ws = `/w/${owner.workspaceId}`;
  const project = `${ws}/projects/${projectId}`;
  const pages: TourPage[] = [
    { name: 'projects', path: `${ws}/projects`, ready: (p) => p.getByRole('row', { name: /docs-site/ }) },
    { name: 'leads', path: `${ws}/leads`, ready: (p) => p.getByRole('heading', { name: 'Leads', level: 1 }) },
    { name: 'tokens', path: `${ws}/tokens`, ready: (p) => p.getByRole('row', { name: /CI deploys/ }) },
    { name: 'members', path: `${ws}/members`, ready: (p) => p.getByRole('row', { name: /grace@tour\.example/ }) },
    {
      name: 'billing',
      path: `${ws}/billing`,
      ready: (p) => p.getByRole('table', { name: /What each plan allows/ }),
      // The bytes the seeded site served are counted a moment after each answer: 5 to 9 KB from run to run.
      volatile: (p) => [p.locator('.usage').filter({ hasText: 'Bandwidth this month' })],
    },
    { name: 'webhooks', path: `${ws}/webhooks`, ready: (p) => p.getByRole('heading', { name: 'Webhooks', level: 1 }) },
    { name: 'invitations', path: '/invitations', ready: (p) => p.getByRole('heading', { name: 'Invitations' }) },
    { name: 'account', path: '/account', ready: (p) => p.getByRole('button', { name: 'Save' }).first() },
    { name: 'audit-log', path: `${ws}/audit-log`, ready: (p) => p.getByText(/^(\d+ entr(y|ies)|No entries yet\.)$/) },
    { name: 'security', path: '/security', ready: (p) => p.getByRole('heading', { name: 'Security', level: 1 }) },
    { name: 'sso', path: `${ws}/sso`, ready: (p) => p.getByRole('form', { name: 'Identity provider' }) },
    { name: 'deployments', path: project, ready: (p) => p.getByRole('link', { name: 'v2', exact: true }) },
    { name: 'deploy', path: `${project}/deploy`, ready: (p) => p.getByRole('heading', { name: 'Deploy a folder' }) },
    { name: 'settings', path: `${project}/settings`, ready: (p) => p.getByRole('row', { name: /SITE_NAME/ }) },
    { name: 'builds', path: `${project}/builds`, ready: (p) => p.getByRole('row', { name: /feature/ }) },
    { name: 'build', path: `${project}/builds/${buildId}`, ready: (p) => p.getByText('End of the log.') },
    { name: 'previews', path: `${project}/previews`, ready: (p) => p.getByRole('row', { name: /feature/ }) },
    { name: 'deployment-files', path: `${project}/deployments/${deploymentId}`, ready: (p) => p.getByText('guide/index.html').first() },
    { name: 'project-leads', path: `${project}/leads`, ready: (p) => p.getByRole('heading', { name: 'Leads' }) },
    { name: 'project-forms', path: `${project}/forms`, ready: (p) => p.getByRole('heading', { name: 'Forms' }).first() },
    { name: 'analytics', path: `${project}/analytics`, ready: (p) => p.locator('.chart canvas').nth(1) },
  ];
  // The onboarding page (issue 33, another branch of this round) joins the tour by itself
  // once its page is merged: its screenshots then need references (UPDATE_SCREENSHOTS=1).
  if (existsSync(join(WEB_SRC, 'pages', 'onboarding.tsx'))) {
    pages.push({ name: 'get-started', path: `${ws}/get-started`, ready: (p) => p.getByRole('heading', { level: 1 }).first() });
  }
  return pages;
}
