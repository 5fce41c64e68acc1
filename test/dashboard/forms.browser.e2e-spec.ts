/// <reference lib="dom" />
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { plainProject, type SeededForm, type SeededSubmission, seedForm, seedSubmission } from '../helpers/forms';
import { asUser, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * A project's Forms tab (issue 30) in a real browser at 375 px: its forms with their
 * counts, a form's submissions decrypted page by page, search, the spam filter and
 * toggle, the CSV download, and deleting one or all after confirming. axe on each state.
 */

const HAM = 26; // more than one page of 25

describe('The Forms tab of the dashboard in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  let projectId: string;
  let contact: SeededForm;
  let ada: SeededSubmission;
  const errors: string[] = [];
  const formsUrl = () => `http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/projects/${projectId}/forms`;
  const submissionRows = () => page.getByRole('region', { name: 'Submissions' }).getByRole('row');
  const formsTable = () => page.getByRole('region', { name: 'Forms' });

  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Fern Forms' });
    await verifyEmail(t, owner);
    projectId = await plainProject(t, owner, 'forms-dashboard');
    contact = await seedForm(t, projectId, 'contact', ['name', 'email', 'message']);
    await seedForm(t, projectId, 'newsletter', ['email']);
    let at = Date.parse('2030-03-01T09:00:00.000Z');
    for (let i = 1; i < HAM; i++) {
      await seedSubmission(
        t,
        contact,
        { name: `Visitor ${i}`, email: `visitor${i}@example.test`, message: `Hello number ${i}` },
        { createdAt: new Date((at += 60_000)) },
      );
    }
    ada = await seedSubmission(
      t,
      contact,
      { name: 'Ada Lovelace', email: 'ada@example.test', message: '=1+1 is a formula' },
      { createdAt: new Date((at += 60_000)) },
    );
    await seedSubmission(t, contact, { name: 'Bot', email: 'bot@spam.test', message: 'cheap pills' }, { createdAt: new Date(at + 60_000), spam: true });

    ({ context, page } = await phonePage(browser.browser, errors, { acceptDownloads: true }));
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => expect(errors).toEqual([]));

  it('lists the forms with their counts and the first form’s submissions, newest first, in pages', async () => {
    await page.goto(`http://127.0.0.1:${t.port}/app/w/${owner.workspaceId}/projects/${projectId}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Forms' }).click();
    await page.getByRole('heading', { name: 'Forms', exact: true }).waitFor();
    const contactRow = formsTable().getByRole('row', { name: /contact/ });
    await contactRow.waitFor();
    expect(await contactRow.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['26', '1']));
    await page.getByRole('heading', { name: 'Submissions of “contact”' }).waitFor();
    await page.getByText(`${HAM} submissions`).waitFor();
    await page.getByText('Page 1 of 2').waitFor();
    // The header row and 25 submissions, the newest (Ada) first; the spam is not shown by default.
    expect(await submissionRows().count()).toBe(26);
    expect(await submissionRows().nth(1).textContent()).toContain('ada@example.test');
    expect(await page.getByText('cheap pills').count()).toBe(0);
    await expectAccessible(page, 'forms');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-forms.png'), fullPage: true });
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    await page.getByText('visitor1@example.test', { exact: true }).waitFor();
  });

  it('searches within the fields and downloads what it shows as CSV', async () => {
    await page.getByLabel('Search submissions').fill('LOVELACE');
    await page.getByText('1 submission matching “LOVELACE”').waitFor();
    expect(await submissionRows().count()).toBe(2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^form-forms-dashboard-contact-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv).toBe(
      `id,createdAt,spam,name,email,message,otherFields\r\n${ada.id},${ada.createdAt},false,Ada Lovelace,ada@example.test,'=1+1 is a formula,\r\n`,
    );
    await page.getByLabel('Search submissions').fill('');
    await page.getByText(`${HAM} submissions`).waitFor();
  });

  it('marks a submission as spam and back; the filter and the counts follow', async () => {
    await page
      .getByRole('button', { name: /^Mark as spam: / })
      .first()
      .click();
    await page.getByText(`${HAM - 1} submissions`).waitFor();
    await formsTable()
      .getByRole('row', { name: /contact/ })
      .getByRole('cell', { name: '2', exact: true })
      .waitFor();
    const marked = await t.http().get(`/projects/${projectId}/forms/${contact.id}/submissions`).query({ spam: 'true' }).set(asUser(owner)).expect(200);
    expect(marked.body.data.map((s: { id: string }) => s.id)).toContain(ada.id);

    await page.getByLabel('Show').selectOption({ label: 'Spam' });
    await page.getByText('2 submissions').waitFor();
    await page.getByText('cheap pills').waitFor();
    await expectAccessible(page, 'forms-spam');
    await submissionRows()
      .filter({ hasText: 'ada@example.test' })
      .getByRole('button', { name: /^Not spam: / })
      .click();
    await page.getByText('1 submission', { exact: true }).waitFor();
    expect(await page.getByText('ada@example.test').count()).toBe(0);
    const back = await t.http().get(`/projects/${projectId}/forms`).set(asUser(owner)).expect(200);
    expect(back.body.data[0]).toMatchObject({ submissionCount: HAM, spamCount: 1 });
  });

  it('deletes one submission after confirming, then every one after typing the form’s name', async () => {
    await page.getByLabel('Show').selectOption({ label: 'Not spam' });
    await page.getByText(`${HAM} submissions`).waitFor();
    await submissionRows()
      .filter({ hasText: 'ada@example.test' })
      .getByRole('button', { name: /^Delete the submission of / })
      .click();
    await expectAccessible(page, 'forms-delete-dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete the submission' }).click();
    await page.getByText(`${HAM - 1} submissions`).waitFor();
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE id = $1', [ada.id]);
    expect(n).toBe(0);

    await page.getByRole('button', { name: 'Delete all submissions' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Delete every submission of “contact”?' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Delete them all' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Type contact to confirm').fill('contact');
    await dialog.getByRole('button', { name: 'Delete them all' }).click();
    await page.getByText('No submissions yet.').waitFor();
    const [{ left }] = await t.dataSource.query('SELECT count(*)::int AS left FROM form_submissions WHERE form_id = $1', [contact.id]);
    expect(left).toBe(0);
  });

  it('opens another form from its name, and from a link to it', async () => {
    await formsTable().getByRole('button', { name: 'newsletter' }).click();
    await page.getByRole('heading', { name: 'Submissions of “newsletter”' }).waitFor();
    await page.getByText('No submissions yet.').waitFor();
    expect(new URL(page.url()).searchParams.get('form')).toMatch(/^frm_/);
    await page.goto(`${formsUrl()}?form=${contact.id}`);
    await page.getByRole('heading', { name: 'Submissions of “contact”' }).waitFor();
  });
});
