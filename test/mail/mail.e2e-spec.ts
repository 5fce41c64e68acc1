import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { MAIL_RETRY_DELAYS_MS } from '../../src/mail/mail.service';
import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, registerUser, uniqueEmail } from '../helpers/identity';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp';

const JWT_SECRET = 'mail-test-jwt-secret-'.padEnd(40, 'j');
const PUBLIC_API_URL = 'http://api.example.test:8080';

/** Sends the outbox until it is empty (a reset request turns into its mail on the next run). */
async function sendMail(t: TestApp): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const report = await t.app.get(OutboxService).runOnce();
    if (report.ran && report.delivered === 0 && report.failed === 0) return;
  }
}

describe('Mail over SMTP (e2e)', () => {
  let smtp: TestSmtpServer;
  let a: TestApp;
  let b: TestApp;
  const env = () => ({ SMTP_URL: smtp.url, MAIL_FROM: 'Acme Hosting <no-reply@example.test>', PRODUCT_NAME: 'Acme Hosting', PUBLIC_API_URL, JWT_SECRET });
  const to = (email: string) => smtp.received.filter((m) => m.rcptTo.includes(email));

  beforeAll(async () => {
    smtp = await startSmtpServer();
    a = await startTestApp({ env: env() });
    b = await startTestApp({ sibling: a, env: env() });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await smtp?.close();
  });

  it('registering mails a verification link with text and HTML parts; the link confirms the address', async () => {
    const user = await registerUser(a, { name: 'Ann <Lee>' });
    expect(to(user.email)).toHaveLength(0); // never sent inside the request
    await sendMail(a);
    const [mail] = to(user.email);
    expect(mail.rcptTo).toEqual([user.email]);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Acme Hosting', address: 'no-reply@example.test' }]);
    expect(mail.parsed.subject).toBe('Confirm your email address for Acme Hosting');
    expect(mail.parsed.text).toContain('Hello Ann <Lee>,');
    expect(mail.parsed.html).toContain('Hello Ann &lt;Lee&gt;,');
    expect(mail.parsed.html).not.toMatch(/<img/i);
    const link = linkIn(mail, `${PUBLIC_API_URL}/app/verify-email?token=`);
    expect(mail.parsed.html).toContain(`href="${link.href}"`);

    const verified = await a
      .http()
      .post('/auth/verify-email')
      .send({ token: link.searchParams.get('token') })
      .expect(200);
    expect(verified.body.user).toMatchObject({ id: user.userId, email: user.email, emailVerified: true });
    expect((await a.http().get('/users/me').set(bearer(user.accessToken)).expect(200)).body.emailVerified).toBe(true);
  });

  it('a reset request mails a link to the account only; an invitation mails the invitee', async () => {
    const user = await registerUser(a);
    await a.http().post('/auth/password-reset').send({ email: user.email.toUpperCase() }).expect(202);
    const nobody = uniqueEmail('nobody');
    await a.http().post('/auth/password-reset').send({ email: nobody }).expect(202);
    const invitee = uniqueEmail('invitee');
    await a.http().post(`/workspaces/${user.workspaceId}/members`).set(asUser(user)).send({ email: invitee, role: 'viewer' }).expect(201);
    await sendMail(a);

    const reset = to(user.email).find((m) => m.parsed.subject === 'Reset your Acme Hosting password')!;
    const token = linkIn(reset, `${PUBLIC_API_URL}/app/reset-password?token=`).searchParams.get('token');
    await a.http().post('/auth/password-reset/confirm').send({ token, password: 'a brand new passphrase' }).expect(204);
    await a.http().post('/auth/login').send({ email: user.email, password: 'a brand new passphrase' }).expect(200);
    expect(to(nobody)).toEqual([]);

    const [invitation] = to(invitee);
    expect(invitation.parsed.subject).toBe(`Test User invited you to Test User's workspace on Acme Hosting`);
    expect(linkIn(invitation, `${PUBLIC_API_URL}/app/register?email=`).searchParams.get('email')).toBe(invitee);
  });

  it('a queued mail survives a restart between the write and the send', async () => {
    const writer = await startTestApp({ sibling: a, env: env() });
    const user = await registerUser(writer);
    await writer.close();
    expect(to(user.email)).toHaveLength(0);

    const restarted = await startTestApp({ sibling: a, env: env() });
    try {
      await sendMail(restarted);
    } finally {
      await restarted.close();
    }
    expect(to(user.email)).toHaveLength(1);
  });

  it('two instances send each mail once', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => registerUser(a)));
    const outboxes = [a, b].map((t) => t.app.get(OutboxService));
    // Both at once, then each again: whoever holds the lock sends, the other finds nothing left.
    await Promise.all([outboxes[0].runOnce(), outboxes[1].runOnce()]);
    await outboxes[1].runOnce();
    await outboxes[0].runOnce();
    for (const user of users) expect(to(user.email)).toHaveLength(1);
    const ids = smtp.received.map((m) => m.parsed.messageId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a refused mail is retried later, not lost', async () => {
    smtp.failNext(1);
    const user = await registerUser(a);
    const first = await a.app.get(OutboxService).runOnce();
    expect(first).toMatchObject({ failed: 1, delivered: 0 });
    expect(to(user.email)).toHaveLength(0);
    await a.dataSource.query(`UPDATE outbox_messages SET next_attempt_at = now() WHERE kind = 'mail' AND delivered_at IS NULL`);
    await sendMail(a);
    expect(to(user.email)).toHaveLength(1);
  });

  it('keeps retrying a refused mail for about two days (an SMTP outage of hours loses no mail), then gives it up', async () => {
    const user = await registerUser(a);
    const row = async () =>
      (
        await a.dataSource.query(`SELECT id, attempts, next_attempt_at, dead_at FROM outbox_messages WHERE kind = 'mail' AND payload->>'to' = $1`, [user.email])
      )[0] as { id: string; attempts: number; next_attempt_at: Date; dead_at: Date | null };
    const { id } = await row();
    let waited = 0;
    smtp.failNext(MAIL_RETRY_DELAYS_MS.length + 1);
    for (let attempt = 1; attempt <= MAIL_RETRY_DELAYS_MS.length; attempt++) {
      await a.dataSource.query(`UPDATE outbox_messages SET next_attempt_at = now() WHERE id = $1`, [id]);
      await a.app.get(OutboxService).runOnce();
      const after = await row();
      expect(after).toMatchObject({ attempts: attempt, dead_at: null });
      waited += after.next_attempt_at.getTime() - Date.now();
    }
    // More than the default backoff's half hour: about two days.
    expect(waited).toBeGreaterThan(40 * 3_600_000);
    await a.dataSource.query(`UPDATE outbox_messages SET next_attempt_at = now() WHERE id = $1`, [id]);
    await a.app.get(OutboxService).runOnce();
    expect((await row()).dead_at).not.toBeNull();
    expect(to(user.email)).toHaveLength(0);
  });
});

describe('Mail without SMTP_URL (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: undefined } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is written as .eml files under DATA_DIR/mail with the links logged at info', async () => {
    const user = await registerUser(t);
    await sendMail(t);
    const files = (await readdir(join(t.dataDir, 'mail'))).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const eml = await readFile(join(t.dataDir, 'mail', files[0]), 'utf8');
    expect(eml).toMatch(new RegExp(`^To: ${user.email.replace(/[.]/g, '\\.')}`, 'm'));
    expect(eml).toContain('Content-Type: multipart/alternative');
    const line = t.logs.find((l) => l.includes('/app/verify-email?token='))!;
    expect(JSON.parse(line).level).toBe('info');
    const link = new URL(/(http:\/\/\S+verify-email\?token=[0-9A-Za-z_]+)/.exec(line)![1]);
    await t
      .http()
      .post('/auth/verify-email')
      .send({ token: link.searchParams.get('token') })
      .expect(200);
  });
});
