import { startTestApp, type TestApp } from '../helpers/app';
import { launchBrowser, signInThroughDashboard } from '../helpers/browser';
import { asUser, registerUser } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * "Who deleted that project, from where?" (issue 32), answered for a deletion made the way
 * people make it: in the dashboard, in a real browser. The entry names the user, the
 * browser's family and the client's network, never its full address or user agent.
 */
describe('audit log: a project deleted from the dashboard (browser e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('records project.deleted with the signed-in user, Chrome and the /24', async () => {
    const user = await registerUser(t);
    const created = await t.http().post('/projects').set(asUser(user)).send({ name: 'Audit Site', slug: 'audit-site-browser' }).expect(201);

    const context = await browser.browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signInThroughDashboard(page, t.baseUrl, user);
    await page.getByRole('row', { name: /Audit Site/ }).waitFor();
    await page.getByRole('button', { name: 'Delete Audit Site' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Type audit-site-browser to confirm').fill('audit-site-browser');
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await page.getByText('No projects yet').waitFor();
    await context.close();

    const rows = await t.dataSource.query(
      `SELECT actor_type, actor_id, actor_label, target_type, target_id, target_label, ip, user_agent, request_id
         FROM audit_log WHERE workspace_id = $1 AND action = 'project.deleted'`,
      [user.workspaceId],
    );
    expect(rows).toEqual([
      {
        actor_type: 'user',
        actor_id: user.userId,
        actor_label: user.email,
        target_type: 'project',
        target_id: created.body.id,
        target_label: 'Audit Site',
        ip: '127.0.0.0/24',
        user_agent: 'Chrome',
        request_id: expect.any(String),
      },
    ]);
  });
});
