import { Clock } from '../../src/common/time';
import { NotificationDigestJob } from '../../src/notifications/notification-digest.job';
import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { type ReceivedEvent, startWebhookReceiver, verifiedEvent, type WebhookReceiver } from '../helpers/webhook-receiver';

const FORM_PAGE = `<!doctype html><title>Contact</title>
<form name="contact" method="POST" data-netlify="true" action="/thanks.html" netlify-honeypot="nickname">
  <input type="hidden" name="form-name" value="contact">
  <input name="nickname"><input name="email" type="email"><textarea name="message"></textarea>
  <button type="submit">Send</button>
</form>`;

/**
 * Issue 30 across its parts, with nothing emitted by hand: a real deploy, a promote and a
 * visitor's form post are what the owner's webhook receiver hears (verified with the
 * `standardwebhooks` package) and what the owner's digest mail lists. Each part has its
 * own suite (test/events, test/webhooks, test/notifications, test/forms); this one proves
 * they are wired to each other.
 */
describe('A site’s life reaches the owner’s webhook receiver and inbox (e2e)', () => {
  let smtp: TestSmtpServer;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let owner: UserSession;
  let token: string;
  let secret: string;
  const slug = `events-${Date.now().toString(36)}`;

  /** Sends the outbox until nothing is left to send. */
  async function sendAll(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      const report = await t.app.get(OutboxService).runOnce();
      if (report.ran && report.delivered === 0 && report.failed === 0) return;
    }
  }
  const events = (): ReceivedEvent[] => receiver.calls.map((call) => verifiedEvent(secret, call));

  beforeAll(async () => {
    smtp = await startSmtpServer();
    receiver = await startWebhookReceiver();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    owner = await registerUser(t);
    await verifyEmail(t, owner);
    token = (await createApiToken(t, owner, { scopes: ['deploy', 'read'] })).token;
    const hook = await t
      .http()
      .post('/webhooks')
      .set(asUser(owner))
      .send({ url: receiver.url(), events: ['*'], includePersonalData: true })
      .expect(201);
    secret = hook.body.secret;
    await t
      .http()
      .put('/users/me/notifications')
      .set(asUser(owner))
      .send({ workspaceId: owner.workspaceId, buildFailed: false, domainFailed: false, digest: 'immediate' })
      .expect(200);
    await sendAll();
    receiver.reset();
    smtp.received.length = 0;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await smtp?.close();
  });

  let projectId: string;
  let first: { id: string };

  it('a deploy is heard as deployment.created, live, with its address', async () => {
    first = await deploySite(t, token, slug, [
      { path: 'index.html', content: FORM_PAGE },
      { path: 'thanks.html', content: 'Thanks!' },
    ]);
    await sendAll();
    const [created] = events();
    expect(events()).toHaveLength(1);
    projectId = created.data.projectId as string;
    expect(created).toMatchObject({
      type: 'deployment.created',
      workspaceId: owner.workspaceId,
      data: { projectSlug: slug, deploymentId: first.id, version: 1, live: true, url: expect.stringContaining(slug) },
    });
  });

  it('a visitor’s form post is stored sealed, counted, and heard as form.submitted with the fields (the endpoint asked for them)', async () => {
    receiver.reset();
    const posted = await site(t, slug)
      .post('/')
      .type('form')
      .send({ 'form-name': 'contact', nickname: '', email: 'ann@example.test', message: 'Hello from the site' })
      .expect(303);
    expect(posted.headers.location).toBe('/thanks.html');

    const forms = (await t.http().get(`/projects/${projectId}/forms`).set(bearer(token)).expect(200)).body.data;
    expect(forms).toEqual([expect.objectContaining({ name: 'contact', fields: ['email', 'message'], submissionCount: 1, spamCount: 0 })]);
    const submissions = (await t.http().get(`/projects/${projectId}/forms/${forms[0].id}/submissions`).set(bearer(token)).expect(200)).body.data;
    expect(submissions).toEqual([expect.objectContaining({ fields: { email: 'ann@example.test', message: 'Hello from the site' }, spam: false })]);
    const raw: { ciphertext: Buffer }[] = await t.dataSource.query('SELECT ciphertext FROM form_submissions WHERE form_id = $1', [forms[0].id]);
    expect(raw[0].ciphertext.toString('latin1')).not.toContain('ann@example.test');

    await sendAll();
    expect(events()).toEqual([
      {
        type: 'form.submitted',
        workspaceId: owner.workspaceId,
        timestamp: expect.any(String),
        data: {
          projectId,
          projectSlug: slug,
          formId: forms[0].id,
          formName: 'contact',
          submissionId: submissions[0].id,
          fields: { email: 'ann@example.test', message: 'Hello from the site' },
        },
      },
    ]);
  });

  it('the owner’s immediate digest lists the submission once its window closes, with a one-click unsubscribe', async () => {
    const later = new Date(Date.now() + t.config.NOTIFICATIONS_DIGEST_WINDOW_SECONDS * 1000 + 1000);
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(later);
    try {
      expect((await t.app.get(NotificationDigestJob).runOnce()).mails).toBe(1);
      await sendAll();
    } finally {
      clock.mockRestore();
    }
    const mails = smtp.received.filter((m) => m.rcptTo.includes(owner.email));
    expect(mails).toHaveLength(1);
    expect(mails[0].parsed.text).toContain('Hello from the site');
    expect(mails[0].raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
  });

  it('a second deploy replaces the first (created + archived), and a rollback promotes it back (promoted + archived)', async () => {
    receiver.reset();
    const second = await deploySite(t, token, slug, [
      { path: 'index.html', content: 'v2' },
      { path: 'thanks.html', content: 'Thanks!' },
    ]);
    await sendAll();
    const byType = (list: ReceivedEvent[]) => Object.fromEntries(list.map((e) => [e.type, e.data]));
    expect(byType(events())).toEqual({
      'deployment.created': expect.objectContaining({ deploymentId: second.id, version: 2, live: true }),
      'deployment.archived': expect.objectContaining({ deploymentId: first.id, version: 1, reason: 'replaced' }),
    });
    // v2 declares no form: a post to it is no submission.
    await site(t, slug).post('/').type('form').send({ 'form-name': 'contact', email: 'late@example.test' }).expect(405);

    receiver.reset();
    await t.http().patch(`/projects/${projectId}/deployments/${first.id}/promote`).set(asUser(owner)).expect(200);
    await sendAll();
    expect(byType(events())).toEqual({
      'deployment.promoted': expect.objectContaining({ deploymentId: first.id, version: 1, previousDeploymentId: second.id }),
      'deployment.archived': expect.objectContaining({ deploymentId: second.id, version: 2, reason: 'replaced' }),
    });
  });
});
