import { Clock } from '../../src/common/time';
import { EventBus } from '../../src/events/event-bus';
import type { PlatformEvent } from '../../src/events/events';
import { MailService } from '../../src/mail/mail.service';
import { NotificationDigestJob } from '../../src/notifications/notification-digest.job';
import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp';

const PUBLIC_API_URL = 'http://api.example.test:8080';
const WINDOW_SECONDS = 120;

/** Sends the outbox until it is empty. */
async function sendMail(t: TestApp): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const report = await t.app.get(OutboxService).runOnce();
    if (report.ran && report.delivered === 0 && report.failed === 0) return;
  }
}

/** The unsubscribe URL of a mail's List-Unsubscribe header (RFC 2369: `<url>`). */
function unsubscribeUrl(mail: ReceivedMail): URL {
  const unfolded = mail.raw.replace(/\r?\n[ \t]+/g, ' ');
  const header = /^List-Unsubscribe: <([^>]+)>/im.exec(unfolded);
  if (!header) throw new Error(`no List-Unsubscribe in:\n${unfolded.slice(0, 2000)}`);
  return new URL(header[1]);
}

describe('Mail notifications (e2e)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let owner: UserSession;
  let viewer: UserSession;
  let admin: UserSession;
  let outsider: UserSession;
  const to = (user: { email: string }) => smtp.received.filter((m) => m.rcptTo.includes(user.email));
  const project = { projectId: 'proj_notifications00000000000', projectSlug: 'shop' };

  /** Emits inside a real transaction, as the emitting modules do. */
  const emit = (event: PlatformEvent) => t.dataSource.transaction((m) => t.app.get(EventBus).emit(m, event));
  const buildFailed = (workspaceId: string, production: boolean): PlatformEvent => ({
    type: 'build.failed',
    workspaceId,
    timestamp: new Date(),
    data: {
      ...project,
      buildId: 'bld_notifications000000000000',
      branch: production ? 'main' : 'feature',
      commitSha: 'abcdef0123456789abcdef0123456789abcdef01',
      trigger: 'push',
      pullRequest: null,
      production,
      dashboardUrl: `${PUBLIC_API_URL}/app/w/${workspaceId}/projects/${project.projectId}/builds/bld_notifications000000000000`,
      error: 'npm run build exited with 1',
    },
  });
  const leadCaptured = (workspaceId: string, email: string): PlatformEvent => ({
    type: 'lead.captured',
    workspaceId,
    timestamp: new Date(),
    data: { ...project, leadId: `lead_${email.length}` },
    personal: { email },
  });
  const formSubmitted = (workspaceId: string, fields: Record<string, string>): PlatformEvent => ({
    type: 'form.submitted',
    workspaceId,
    timestamp: new Date(),
    data: { ...project, formId: 'frm_notifications000000000000', formName: 'contact', submissionId: 'fsub_notifications00000000000' },
    personal: { fields },
  });
  const put = (user: UserSession, body: Record<string, unknown>) => t.http().put('/users/me/notifications').set(bearer(user.accessToken)).send(body);
  const settingsOf = async (user: UserSession, workspaceId = owner.workspaceId) =>
    ((await t.http().get('/users/me/notifications').set(bearer(user.accessToken)).expect(200)).body.workspaces as { workspaceId: string }[]).find(
      (w) => w.workspaceId === workspaceId,
    );

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      env: { SMTP_URL: smtp.url, PUBLIC_API_URL, PRODUCT_NAME: 'Acme Hosting', NOTIFICATIONS_DIGEST_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
    owner = await registerUser(t, { name: 'Olive Owner' });
    await verifyEmail(t, owner);
    viewer = await registerUser(t, { name: 'Vic Viewer' });
    admin = await registerUser(t, { name: 'Ada Admin' });
    outsider = await registerUser(t, { name: 'Otto Outsider' });
    await addMember(t, owner, viewer, 'viewer');
    await addMember(t, owner, admin, 'admin');
    // The project the events name (a digest item goes with its project).
    await t.dataSource.query(`INSERT INTO projects (id, workspace_id, name, slug, created_at) VALUES ($1, $2, 'Shop', $3, now())`, [
      project.projectId,
      owner.workspaceId,
      project.projectSlug,
    ]);
    await verifyEmail(t, outsider);
    await sendMail(t);
    smtp.received.length = 0;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await smtp?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it('are all off until chosen, per workspace; PUT sets one workspace’s choices and refuses bad input and foreign workspaces', async () => {
    const initial = await t.http().get('/users/me/notifications').set(bearer(viewer.accessToken)).expect(200);
    expect(initial.body.workspaces).toEqual(
      expect.arrayContaining([
        { workspaceId: owner.workspaceId, workspaceName: expect.any(String), role: 'viewer', buildFailed: false, domainFailed: false, digest: 'off' },
        { workspaceId: viewer.workspaceId, workspaceName: expect.any(String), role: 'owner', buildFailed: false, domainFailed: false, digest: 'off' },
      ]),
    );

    const set = await put(viewer, { workspaceId: owner.workspaceId, buildFailed: true, domainFailed: false, digest: 'immediate' }).expect(200);
    expect(set.body.workspaces.find((w: { workspaceId: string }) => w.workspaceId === owner.workspaceId)).toMatchObject({
      buildFailed: true,
      domainFailed: false,
      digest: 'immediate',
    });
    expect(await settingsOf(viewer, viewer.workspaceId)).toMatchObject({ buildFailed: false, digest: 'off' });

    const foreign = await put(outsider, { workspaceId: owner.workspaceId, buildFailed: true, domainFailed: true, digest: 'daily' }).expect(404);
    expect(foreign.body).toMatchObject({ code: 'not_found' });
    const bad = await put(viewer, { workspaceId: owner.workspaceId, buildFailed: 'yes', domainFailed: false, digest: 'hourly' }).expect(400);
    expect(bad.body.message).toEqual(expect.stringMatching(/buildFailed|digest/));
    await put(viewer, { workspaceId: owner.workspaceId, buildFailed: true, domainFailed: false }).expect(400);
    await t.http().get('/users/me/notifications').expect(401);
    expect(await settingsOf(viewer)).toMatchObject({ buildFailed: true, domainFailed: false, digest: 'immediate' });
  });

  it('a failed production build mails only the workspace’s members who opted in, with RFC 8058 one-click headers', async () => {
    await put(owner, { workspaceId: owner.workspaceId, buildFailed: true, domainFailed: true, digest: 'off' }).expect(200);
    await put(viewer, { workspaceId: owner.workspaceId, buildFailed: true, domainFailed: false, digest: 'immediate' }).expect(200);
    // Opted in, but in their own workspace only; the admin never opted in.
    await put(outsider, { workspaceId: outsider.workspaceId, buildFailed: true, domainFailed: true, digest: 'immediate' }).expect(200);

    await emit(buildFailed(owner.workspaceId, false)); // a preview branch: no mail
    await emit(buildFailed(owner.workspaceId, true));
    await sendMail(t);

    expect(to(admin)).toEqual([]);
    expect(to(outsider)).toEqual([]);
    expect(to(owner)).toHaveLength(1);
    expect(to(viewer)).toHaveLength(1);
    const [mail] = to(owner);
    expect(mail.parsed.subject).toBe(`Production build failed: shop (Olive Owner's workspace)`);
    expect(mail.parsed.text).toContain('npm run build exited with 1');
    expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const url = unsubscribeUrl(mail);
    expect(url.origin + url.pathname).toBe(`${PUBLIC_API_URL}/notifications/unsubscribe`);
    expect(mail.parsed.text).toContain(url.href);
  });

  it('a flood of alerts never holds back an account mail: they are sent in a line of their own', async () => {
    // The owner and the viewer have build alerts on (the first test's choices).
    smtp.received.length = 0;
    // 60 alerts, more than one round sends of a kind (50), then a password reset for someone else.
    for (let i = 0; i < 30; i++) await emit(buildFailed(owner.workspaceId, true));
    await t.dataSource.transaction((m) =>
      t.app
        .get(MailService)
        .queue(m, admin.email, { template: 'password_reset', data: { name: 'Ada Admin', link: `${PUBLIC_API_URL}/app/reset-password?token=x` } }, new Date()),
    );
    await t.app.get(OutboxService).runOnce();
    expect(to(admin)).toHaveLength(1);
    expect(to(admin)[0].parsed.subject).toMatch(/reset/i);
    expect(to(owner).length + to(viewer).length).toBeLessThanOrEqual(50);
    await sendMail(t);
    expect(to(owner)).toHaveLength(30);
    expect(to(viewer)).toHaveLength(30);
    smtp.received.length = 0;
  });

  it('alerts of one workspace take turns with another’s: a flood from one never holds back the other’s', async () => {
    const solo = await registerUser(t, { name: 'Sol Solo' });
    await verifyEmail(t, solo);
    await put(solo, { workspaceId: solo.workspaceId, buildFailed: true, domainFailed: false, digest: 'off' }).expect(200);
    await sendMail(t);
    smtp.received.length = 0;
    // 60 alerts of the owner's workspace (owner and viewer have build alerts on), more than a round sends (50), then one of Sol's.
    for (let i = 0; i < 30; i++) await emit(buildFailed(owner.workspaceId, true));
    await emit(buildFailed(solo.workspaceId, true));
    await t.app.get(OutboxService).runOnce();
    expect(to(solo)).toHaveLength(1);
    await sendMail(t);
    expect(to(owner).length + to(viewer).length).toBe(60);
    smtp.received.length = 0;
  });

  it('a domain that stops verifying mails only those who opted in to domain mails; a rolled-back change mails nobody', async () => {
    smtp.received.length = 0;
    const event: PlatformEvent = {
      type: 'domain.failed',
      workspaceId: owner.workspaceId,
      timestamp: new Date(),
      data: { ...project, domain: 'www.shop.example', reason: 'the TXT record _statichost-challenge.www.shop.example is missing' },
    };
    await expect(
      t.dataSource.transaction(async (m) => {
        await t.app.get(EventBus).emit(m, event);
        throw new Error('the change failed after the event');
      }),
    ).rejects.toThrow('the change failed');
    await sendMail(t);
    expect(smtp.received).toEqual([]);

    await emit(event);
    await sendMail(t);
    expect(to(owner).map((m) => m.parsed.subject)).toEqual([`Domain www.shop.example stopped verifying (Olive Owner's workspace)`]);
    expect(to(viewer)).toEqual([]);
    expect(to(outsider)).toEqual([]);
  });

  it('the immediate digest batches what arrives within its window into one mail, sealed until it is sent', async () => {
    smtp.received.length = 0;
    const start = new Date();
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(start);
    await emit(leadCaptured(owner.workspaceId, 'visitor.one@example.org'));
    await emit(formSubmitted(owner.workspaceId, { name: 'Rita Visitor', message: 'Call me about the <b>deal</b>' }));
    await emit(leadCaptured(outsider.workspaceId, 'elsewhere@example.org'));

    // Only the viewer wants this workspace's digest; what the visitors typed is not in the table.
    const items: { user_id: string }[] = await t.dataSource.query('SELECT user_id FROM notification_digest_items WHERE workspace_id = $1', [owner.workspaceId]);
    expect(items.map((i) => i.user_id)).toEqual([viewer.userId, viewer.userId]);
    const raw = JSON.stringify(await t.dataSource.query('SELECT *, encode(ciphertext, $1) AS c FROM notification_digest_items', ['escape']));
    expect(raw).not.toContain('visitor.one');
    expect(raw).not.toContain('Rita');

    expect((await t.app.get(NotificationDigestJob).runOnce()).mails).toBe(0); // the window is still open
    clock.mockReturnValue(new Date(start.getTime() + (WINDOW_SECONDS - 1) * 1000));
    expect((await t.app.get(NotificationDigestJob).runOnce()).mails).toBe(0);
    clock.mockReturnValue(new Date(start.getTime() + WINDOW_SECONDS * 1000));
    const report = await t.app.get(NotificationDigestJob).runOnce();
    expect(report.mails).toBe(2); // the viewer's here, the outsider's in their own workspace
    expect((await t.app.get(NotificationDigestJob).runOnce()).mails).toBe(0);
    // Queued to be sent, what the visitors typed stays sealed (the outbox payload too).
    const queued = JSON.stringify(await t.dataSource.query('SELECT kind, payload FROM outbox_messages WHERE delivered_at IS NULL'));
    expect(queued).toContain('notify_digest');
    expect(queued).not.toContain('visitor.one');
    expect(queued).not.toContain('Rita');
    await sendMail(t); // queued at the job's (moved) clock
    clock.mockRestore();

    expect(to(owner)).toEqual([]);
    expect(to(admin)).toEqual([]);
    const [digest] = to(viewer);
    expect(digest.parsed.subject).toBe(`2 new leads and form submissions in Olive Owner's workspace`);
    expect(digest.parsed.text).toContain('Lead on shop: visitor.one@example.org');
    expect(digest.parsed.text).toContain('Form "contact" on shop: name: Rita Visitor · message: Call me about the <b>deal</b>');
    expect(digest.parsed.html).toContain('Call me about the &lt;b&gt;deal&lt;/b&gt;');
    expect(digest.parsed.text).not.toContain('elsewhere@example.org');
    expect(unsubscribeUrl(digest).searchParams.get('token')).toContain('.digest.');
    expect(to(outsider).map((m) => m.parsed.text)).toEqual([expect.stringContaining('elsewhere@example.org')]);
    expect(await t.dataSource.query('SELECT 1 FROM notification_digest_items')).toEqual([]);
  });

  it('the daily digest waits for the day’s digest hour and sends what came before it', async () => {
    smtp.received.length = 0;
    await put(owner, { workspaceId: owner.workspaceId, buildFailed: true, domainFailed: true, digest: 'daily' }).expect(200);
    // Two hours past today's digest hour: the window below must not reach the next one (run
    // at 07:59 UTC, the real time's window crossed 08:00 and the digest rightly went at once).
    const day = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const start = new Date(day + (t.config.NOTIFICATIONS_DAILY_DIGEST_HOUR + 2) * 3_600_000);
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(start);
    await emit(leadCaptured(owner.workspaceId, 'daily.visitor@example.org'));
    clock.mockReturnValue(new Date(start.getTime() + WINDOW_SECONDS * 1000));
    await t.app.get(NotificationDigestJob).runOnce(); // the viewer's immediate digest goes; the owner's waits
    await sendMail(t);
    expect(to(viewer)).toHaveLength(1);
    expect(to(owner)).toEqual([]);

    // Whatever the digest hour, one has passed 25 hours later.
    clock.mockReturnValue(new Date(start.getTime() + 25 * 3_600_000));
    expect((await t.app.get(NotificationDigestJob).runOnce()).mails).toBe(1);
    await sendMail(t);
    clock.mockRestore();
    const [daily] = to(owner);
    expect(daily.parsed.subject).toBe(`1 new lead or form submission in Olive Owner's workspace`);
    expect(daily.parsed.text).toContain('Lead on shop: daily.visitor@example.org');
  });

  it('the unsubscribe link: GET only shows a button, a tampered token changes nothing, the one-click POST turns the mail off', async () => {
    smtp.received.length = 0;
    await emit(buildFailed(owner.workspaceId, true));
    await sendMail(t);
    const url = unsubscribeUrl(to(owner)[0]);
    const path = url.pathname + url.search;

    const page = await t.http().get(path).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<form method="post">');
    expect(page.text).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(await settingsOf(owner)).toMatchObject({ buildFailed: true });

    const token = url.searchParams.get('token')!;
    const forged = token.replace(`.${owner.userId}.`, `.${viewer.userId}.`);
    for (const bad of [forged, token.slice(0, -2), token.replace('.build_failed.', '.digest.')]) {
      // A mail client or script: the API's error body, as every route answers.
      const refused = await t
        .http()
        .post(`/notifications/unsubscribe?token=${encodeURIComponent(bad)}`)
        .type('form')
        .send('List-Unsubscribe=One-Click')
        .expect(400);
      expect(refused.body).toMatchObject({ statusCode: 400, code: 'validation_failed', message: expect.stringContaining('token') });
    }
    // A person who clicked the link: a page saying so.
    const invalid = await t
      .http()
      .get(`/notifications/unsubscribe?token=${encodeURIComponent(forged)}`)
      .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8')
      .expect(400);
    expect(invalid.headers['content-type']).toMatch(/^text\/html/);
    expect(await settingsOf(owner)).toMatchObject({ buildFailed: true, domainFailed: true, digest: 'daily' });
    expect(await settingsOf(viewer)).toMatchObject({ buildFailed: true });

    // As a mail client does it (RFC 8058): no cookie, no credential.
    const done = await t.http().post(path).type('form').send('List-Unsubscribe=One-Click').expect(200);
    expect(done.text).toContain('Unsubscribed');
    expect(await settingsOf(owner)).toMatchObject({ buildFailed: false, domainFailed: true, digest: 'daily' });

    smtp.received.length = 0;
    await emit(buildFailed(owner.workspaceId, true));
    await sendMail(t);
    expect(to(owner)).toEqual([]);
    expect(to(viewer)).toHaveLength(1);
  });

  it('mails only verified addresses and only active members', async () => {
    smtp.received.length = 0;
    const unverified = await registerUser(t, { name: 'Una Unverified' });
    await put(unverified, { workspaceId: unverified.workspaceId, buildFailed: true, domainFailed: true, digest: 'immediate' }).expect(200);
    await emit(buildFailed(unverified.workspaceId, true));
    // The viewer leaves: their choices stay, their mails stop.
    const members = await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(asUser(owner)).expect(200);
    const membership = (members.body.data as { id: string; email: string }[]).find((m) => m.email === viewer.email)!;
    await t.http().delete(`/workspaces/${owner.workspaceId}/members/${membership.id}`).set(asUser(owner)).expect(204);
    await emit(buildFailed(owner.workspaceId, true));
    await sendMail(t);
    expect(to(unverified).filter((m) => m.parsed.subject?.startsWith('Production'))).toEqual([]);
    expect(to(viewer)).toEqual([]);
  });

  it('an account deleted between a form post’s plan and its write gets no digest entry; the others do, and the write commits', async () => {
    const carol = await registerUser(t, { name: 'Carol Owner' });
    const dave = await registerUser(t, { name: 'Dave Member' });
    for (const user of [carol, dave]) await verifyEmail(t, user);
    await addMember(t, carol, dave, 'admin');
    for (const user of [carol, dave]) await put(user, { workspaceId: carol.workspaceId, buildFailed: false, domainFailed: false, digest: 'daily' }).expect(200);
    const event = formSubmitted(carol.workspaceId, { message: 'race' });
    // As the form intake does: who gets the event is read before the transaction that writes it.
    const planned = await t.app.get(EventBus).plan(t.dataSource.manager, event);
    await t.dataSource.query('DELETE FROM users WHERE id = $1', [dave.userId]);
    await t.dataSource.transaction((m) => planned.write(m));
    const items: { user_id: string }[] = await t.dataSource.query('SELECT user_id FROM notification_digest_items WHERE workspace_id = $1', [carol.workspaceId]);
    expect(items.map((i) => i.user_id)).toEqual([carol.userId]);
  });
});
