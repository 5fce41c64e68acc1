/// <reference lib="dom" />
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';

import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { ARTIFACTS, expectAccessible, goToSection, launchBrowser, phonePage, signInThroughDashboard } from '../helpers/browser';
import { registerUser, type UserSession, verifyEmail } from '../helpers/identity';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

/**
 * The Webhooks page of a workspace (issue 30) in a real browser at 375 px: add an endpoint
 * (the secret shown once), send a test event to a real receiver that verifies it with the
 * secret the page showed, see the delivery, redeliver it, delete the endpoint. axe on the page.
 */
describe('The dashboard’s Webhooks page in a real browser (e2e)', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let owner: UserSession;
  let receiver: Server;
  const calls: { headers: IncomingHttpHeaders; raw: string }[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    buildWeb({ quiet: true });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        calls.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    browser = await launchBrowser();
    owner = await registerUser(t, { name: 'Wendy Webhooks' });
    await verifyEmail(t, owner);
    ({ context, page } = await phonePage(browser.browser, errors));
    await signInThroughDashboard(page, `http://127.0.0.1:${t.port}`, owner);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });
  afterEach(() => expect(errors).toEqual([]));

  it('adds an endpoint (secret once), sends a test event the receiver verifies, redelivers it, deletes the endpoint', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    await goToSection(page, 'Webhooks');
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    await expectAccessible(page, 'webhooks-empty');

    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByLabel('Description').fill('CRM sync');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secretCode = page.locator('.secret-value code');
    await secretCode.waitFor();
    const secret = (await secretCode.textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await expectAccessible(page, 'webhooks-secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    // Waited for, not counted at once: CI once counted it before React had re-rendered.
    await page.getByText(secret).waitFor({ state: 'detached', timeout: 5_000 });

    const endpoint = page.getByRole('region', { name: `Webhook ${url}` });
    await endpoint.getByRole('button', { name: 'Send a test event' }).click();
    await endpoint.getByText('Test event queued.').waitFor();
    await t.app.get(OutboxService).runOnce();
    expect(calls).toHaveLength(1);
    const verified = new StandardWebhook(secret).verify(calls[0].raw, {
      'webhook-id': String(calls[0].headers['webhook-id']),
      'webhook-timestamp': String(calls[0].headers['webhook-timestamp']),
      'webhook-signature': String(calls[0].headers['webhook-signature']),
    });
    expect(verified).toMatchObject({ type: 'webhook.test', workspaceId: owner.workspaceId });

    await endpoint.getByRole('button', { name: 'Show deliveries' }).click();
    const row = endpoint.getByRole('row', { name: /webhook\.test/ });
    await row.getByText('succeeded').waitFor();
    await expectAccessible(page, 'webhooks-deliveries');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-webhooks.png'), fullPage: true });

    await row.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    await row.getByText('pending').waitFor();
    await t.app.get(OutboxService).runOnce();
    await row.getByText('succeeded').waitFor();
    expect(calls).toHaveLength(2);
    expect(calls[1].headers['webhook-id']).toBe(calls[0].headers['webhook-id']);

    await endpoint.getByRole('button', { name: `Delete ${url}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('No webhooks yet').waitFor();
  });
});
