import { createHash } from 'node:crypto';

import { AuditLogService } from '../../src/audit/audit-log.service';
import { EventBus } from '../../src/events/event-bus';
import { FORM_COUNTER_SLOTS } from '../../src/forms/form-counter.entity';
import { openFields, submissionAad } from '../../src/forms/submission-crypto';
import { LeadsKeyring } from '../../src/leads/keyring';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { asUser, bearer, createApiToken, registerUser, verifyEmail } from '../helpers/identity';
import { someoneWaits } from '../helpers/row-lock';
import { deploySite, site } from '../helpers/sites';

const CONTACT = `<!doctype html><title>Contact</title>
<form name="contact" method="POST" data-netlify="true" netlify-honeypot="bot-field" action="/thanks/">
  <input type="hidden" name="form-name" value="contact">
  <p hidden><label>Leave empty <input name="bot-field"></label></p>
  <label>Name <input name="name"></label>
  <label>Message <textarea name="message"></textarea></label>
  <button type="submit">Send</button>
</form>`;
const SIGNUP = `<!doctype html><form data-statichost-form="signup" method="post"><input type="hidden" name="form-name" value="signup">
<input type="email" name="email"><input type="checkbox" name="topics" value="news"><input type="checkbox" name="topics" value="jobs"></form>`;
const APPLY = `<!doctype html><form data-statichost-form="apply" method="post" enctype="multipart/form-data"><input name="who"><input type="file" name="cv"></form>`;

interface SubmissionRow {
  id: string;
  form_id: string;
  key_id: string;
  nonce: Buffer;
  ciphertext: Buffer;
  spam: boolean;
  spam_reason: string | null;
  deployment_id: string;
  search_tokens: number[];
}

describe('Forms on hosted sites: intake (e2e)', () => {
  let t: TestApp;
  let session: Awaited<ReturnType<typeof registerUser>>;
  let token: string;
  let deploymentId: string;

  beforeAll(async () => {
    t = await startTestApp({
      // Every visitor here posts from 127.0.0.1: the address allowance is tested on a sibling app of its own.
      env: {
        FORMS_RATE_LIMIT_MAX: '3',
        FORMS_RATE_LIMIT_ADDRESS_MAX: '10000',
        // The crowd below posts from addresses of its own (X-Forwarded-For), as a crowd does.
        TRUST_PROXY: '1',
        FORMS_MAX_FIELDS: '20',
        FORMS_MAX_TOTAL_BYTES: '4096',
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      },
    });
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy'] })).token;
    deploymentId = (
      await deploySite(t, token, 'formsite', [
        { path: 'index.html', content: CONTACT },
        { path: 'thanks/index.html', content: '<h1>Thanks!</h1>' },
        { path: 'signup.html', content: SIGNUP },
        { path: 'apply.html', content: APPLY },
      ])
    ).id;
    await deploySite(t, token, 'noforms', [{ path: 'index.html', content: '<form method="post"><input name="q"></form>' }]);
  });
  afterAll(() => t.close());

  const post = (slug: string, ua: string, path = '/') => site(t, slug).post(path).set('User-Agent', ua);
  /** The owner's digest mode in their workspace (a digest item is written per post while it is on). */
  const digest = (mode: 'off' | 'daily') =>
    t
      .http()
      .put('/users/me/notifications')
      .set(asUser(session))
      .send({ workspaceId: session.workspaceId, buildFailed: false, domainFailed: false, digest: mode })
      .expect(200);
  const submissions = (): Promise<SubmissionRow[]> =>
    t.dataSource.query(
      `SELECT s.* FROM form_submissions s JOIN forms f ON f.id = s.form_id JOIN projects p ON p.id = f.project_id WHERE p.slug = 'formsite' ORDER BY s.created_at, s.id`,
    );
  const open = (row: SubmissionRow) => openFields(t.app.get(LeadsKeyring).key(row.key_id)!, row, submissionAad(row.form_id, row.id));
  const form = async (name: string) =>
    (
      await t.dataSource.query(
        `SELECT f.id, f.fields, COALESCE(sum(c.submissions), 0)::int AS submission_count, COALESCE(sum(c.spam), 0)::int AS spam_count,
           max(c.last_submission_at) AS last_submission_at
         FROM forms f JOIN projects p ON p.id = f.project_id LEFT JOIN form_counters c ON c.form_id = f.id
         WHERE p.slug = 'formsite' AND f.name = $1 GROUP BY f.id`,
        [name],
      )
    )[0] as { id: string; fields: string[]; submission_count: number; spam_count: number; last_submission_at: Date | null } | undefined;

  it('accepts a deploy whose form HTML holds NUL characters, read as a browser reads them (U+FFFD), never a 500', async () => {
    const html =
      '<!doctype html><form data-statichost-form="nul\u0000form" method="post" action="/\u0000x"><input name="a\u0000b"><textarea name="note"></textarea></form>';
    const deployed = await deploySite(t, token, 'nulforms', [{ path: 'index.html', content: html }]);
    const [row] = await t.dataSource.query('SELECT forms FROM deployments WHERE id = $1', [deployed.id]);
    expect(row.forms).toEqual([
      { name: 'nul\ufffdform', fields: ['a\ufffdb', 'note'], honeypot: null, action: '/%EF%BF%BDx', page: 'index.html', files: false },
    ]);
    const listed = await t.dataSource.query(`SELECT f.name, f.fields FROM forms f JOIN projects p ON p.id = f.project_id WHERE p.slug = 'nulforms'`);
    expect(listed).toEqual([{ name: 'nul\ufffdform', fields: ['a\ufffdb', 'note'] }]);
  });

  it('registers the forms the HTML declares on the deployment, and the deploy answer is unchanged', async () => {
    const [row] = await t.dataSource.query('SELECT forms FROM deployments WHERE id = $1', [deploymentId]);
    expect(row.forms).toEqual([
      { name: 'apply', fields: ['who', 'cv'], honeypot: null, action: null, page: 'apply.html', files: true },
      { name: 'contact', fields: ['name', 'message'], honeypot: 'bot-field', action: '/thanks/', page: 'index.html', files: false },
      { name: 'signup', fields: ['email', 'topics'], honeypot: null, action: null, page: 'signup.html', files: false },
    ]);
    const memo = await t.dataSource.query('SELECT count(*)::int AS n FROM html_form_scans');
    expect(memo[0].n).toBeGreaterThanOrEqual(3);
  });

  it('reads digest-only HTML back from storage, and parses each content once (html_form_scans)', async () => {
    const html = Buffer.from(SIGNUP.replace('signup', 'digest-signup').replace('value="signup"', 'value="digest-signup"'));
    const sha256 = createHash('sha256').update(html).digest('hex');
    await t.http().put(`/v1/blobs/${sha256}`).set(bearer(token)).set('Content-Type', 'application/octet-stream').send(html).expect(201);
    // What the memo says is what the deploy uses: a content seen before is not parsed again.
    const contactSha = createHash('sha256').update(CONTACT).digest('hex');
    await t.dataSource.query(`UPDATE html_form_scans SET forms = jsonb_set(forms, '{0,name}', '"from-memo"') WHERE sha256 = $1`, [contactSha]);
    const res = await t
      .http()
      .post('/v1/deployments')
      .set(bearer(token))
      .send({
        project_slug: 'digestforms',
        files: [
          { path: 'index.html', sha256, size: html.length },
          { path: 'contact.html', content: CONTACT },
        ],
      })
      .expect(201);
    const [row] = await t.dataSource.query('SELECT forms FROM deployments WHERE id = $1', [res.body.id]);
    expect((row.forms as { name: string; page: string }[]).map((f) => [f.name, f.page])).toEqual([
      ['from-memo', 'contact.html'],
      ['digest-signup', 'index.html'],
    ]);
    await t.dataSource.query(`UPDATE html_form_scans SET forms = jsonb_set(forms, '{0,name}', '"contact"') WHERE sha256 = $1`, [contactSha]);
  });

  it('takes a browser-style urlencoded post and answers 303 to the action page, sealed at rest', async () => {
    const res = await post('formsite', 'visitor-a')
      .type('form')
      .set('Accept', 'text/html,application/xhtml+xml')
      .send({ 'form-name': 'contact', 'bot-field': '', name: 'Ann Example', message: 'Hello from the contact form', extra: 'not declared' })
      .expect(303);
    expect(res.headers.location).toBe('/thanks/');
    const [row] = await submissions();
    expect(row.spam).toBe(false);
    expect(row.deployment_id).toBe(deploymentId);
    // Encrypted at rest: no plaintext in any column of the raw table.
    const raw = JSON.stringify(await t.dataSource.query(`SELECT *, encode(ciphertext, 'escape') AS c FROM form_submissions WHERE id = $1`, [row.id]));
    for (const plain of ['Ann', 'Hello', 'contact form']) expect(raw).not.toContain(plain);
    expect(Object.entries(open(row)!)).toEqual([
      ['name', 'Ann Example'],
      ['message', 'Hello from the contact form'],
    ]);
    const contact = await form('contact');
    expect(contact).toMatchObject({ fields: ['name', 'message'], submission_count: 1, spam_count: 0 });
    expect(contact!.last_submission_at).not.toBeNull();
  });

  it('answers a fetch asking for JSON with the submission id; multipart without files is taken', async () => {
    const res = await post('formsite', 'visitor-b', '/signup.html')
      .set('Accept', 'application/json')
      .field('form-name', 'signup')
      .field('email', 'ann@example.com')
      .field('topics', 'news')
      .field('topics', 'jobs')
      .expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ ok: true, id: expect.stringMatching(/^fsub_/), form: 'signup' });
    const row = (await submissions()).find((r) => r.id === res.body.id)!;
    expect(open(row)).toEqual({ email: 'ann@example.com', topics: 'news, jobs' });
  });

  it('answers 400 naming the field for a multipart part in a charset that cannot be read, storing nothing', async () => {
    const before = (await submissions()).length;
    const boundary = 'xYzBoundary';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="form-name"',
      '',
      'signup',
      `--${boundary}`,
      'Content-Disposition: form-data; name="email"',
      'Content-Type: text/plain; charset=utf-16be',
      '',
      'ann@example.com',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await post('formsite', 'visitor-charset').set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(body);
    expect(res.status).toBe(400);
    expect(res.text).toContain('email');
    expect((await submissions()).length).toBe(before);
  });

  it('thanks with a built-in page when the form names no page of the site', async () => {
    const res = await post('formsite', 'visitor-c').type('form').send({ 'form-name': 'signup', email: 'b@example.com' }).expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('Thank you');
  });

  it('keeps a filled honeypot as spam, answered exactly like a success, with no counter of real submissions moved', async () => {
    const before = await form('contact');
    const res = await post('formsite', 'bot-1').type('form').send({ 'form-name': 'contact', 'bot-field': 'https://spam.example', name: 'Bot' }).expect(303);
    expect(res.headers.location).toBe('/thanks/');
    const rows = await submissions();
    const spam = rows[rows.length - 1];
    expect(spam).toMatchObject({ spam: true, spam_reason: 'honeypot' });
    expect(open(spam)).toEqual({ name: 'Bot' });
    expect(await form('contact')).toMatchObject({ submission_count: before!.submission_count, spam_count: before!.spam_count + 1 });
  });

  it('counts concurrent submissions to one form exactly, over several counter rows that do not make them wait in line', async () => {
    // The first post to a form registers its row (an upsert the lock below would hold up too).
    await post('formsite', 'crowd-first').type('form').send({ 'form-name': 'contact', name: 'First' }).expect(303);
    const before = await form('contact');
    // The form's row held FOR UPDATE (the intake takes FOR KEY SHARE on it): every submission
    // then waits on a connection of its own, so they overlap however slowly the requests
    // arrive, and pg_stat_activity says which connections (hence which slots) they use.
    const lock = t.dataSource.createQueryRunner();
    await lock.connect();
    let waiting: number[];
    let posts: Promise<unknown>;
    try {
      await lock.startTransaction();
      await lock.query('SELECT 1 FROM forms WHERE id = $1 FOR UPDATE', [before!.id]);
      posts = Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          post('formsite', `crowd-${i}`)
            .set('X-Forwarded-For', `198.51.100.${i}`)
            .type('form')
            .send({ 'form-name': 'contact', name: `Crowd ${i}` })
            .expect(303),
        ),
      );
      waiting = await eventually(async () => {
        // Inside a transaction the activity view is a snapshot: drop it to see the waits as they come.
        await lock.query('SELECT pg_stat_clear_snapshot()');
        const rows: { pid: number }[] = await lock.query(
          // The statement's start: pg_stat_activity keeps only its first 1 KB (track_activity_query_size).
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH listeners AS%INSERT INTO gate_rate_limits%'`,
        );
        expect(rows.length).toBeGreaterThanOrEqual(3);
        return rows.map((r) => r.pid);
      });
      await lock.commitTransaction();
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
    await posts;
    const after = await form('contact');
    expect(after).toMatchObject({ submission_count: before!.submission_count + 30, spam_count: before!.spam_count });
    const newest = await t.dataSource.query(`SELECT max(created_at) AS at FROM form_submissions WHERE form_id = $1 AND NOT spam`, [after!.id]);
    expect(after!.last_submission_at).toEqual(newest[0].at);
    // Each connection counts in its own slot: with one row, each submission would have waited for the previous one's commit.
    const slots = (await t.dataSource.query('SELECT slot FROM form_counters WHERE form_id = $1', [after!.id])).map((r: { slot: number }) => r.slot);
    const theirs = [...new Set(waiting.map((pid) => pid % FORM_COUNTER_SLOTS))];
    expect(slots).toEqual(expect.arrayContaining(theirs));
  });

  it('refuses an unregistered or missing form name, and stores nothing', async () => {
    const count = (await submissions()).length;
    const unknown = await post('formsite', 'visitor-d').type('form').send({ 'form-name': 'newsletter', email: 'x@example.com' }).expect(404);
    expect(unknown.text).toContain('no form named &quot;newsletter&quot;');
    const missing = await post('formsite', 'visitor-d').set('Accept', 'application/json').type('form').send({ email: 'x@example.com' }).expect(400);
    expect(missing.body).toMatchObject({ statusCode: 400, code: 'form_name_missing' });
    expect(await submissions()).toHaveLength(count);
  });

  it('refuses files with a clear page, and bodies past the limits', async () => {
    const count = (await submissions()).length;
    const file = await post('formsite', 'visitor-e', '/apply.html')
      .field('form-name', 'apply')
      .field('who', 'Ann')
      .attach('cv', Buffer.from('%PDF-1.4 resume'), 'cv.pdf')
      .expect(415);
    expect(file.text).toContain('Files are not accepted');
    // A file input left empty is what a browser sends for it: not a file.
    await post('formsite', 'visitor-e', '/apply.html').field('form-name', 'apply').field('who', 'Ann').attach('cv', Buffer.alloc(0), '').expect(200);
    const big = await post('formsite', 'visitor-e')
      .type('form')
      .send({ 'form-name': 'contact', message: 'x'.repeat(5000) })
      .expect(413);
    expect(big.text).toContain('larger than 4096 bytes');
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, 'v']));
    await post('formsite', 'visitor-e')
      .type('form')
      .send({ 'form-name': 'contact', ...many })
      .expect(413);
    await post('formsite', 'visitor-e')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ 'form-name': 'contact' }))
      .expect(415);
    expect(await submissions()).toHaveLength(count + 1);
  });

  it('rate-limits per visitor: past the allowance kept as spam, past twice it 429 with Retry-After', async () => {
    const send = () => post('formsite', 'eager-visitor').type('form').send({ 'form-name': 'signup', email: 'eager@example.com' });
    for (let i = 0; i < 6; i++) await send().expect(200);
    const refused = await send().expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const eager = (await submissions()).filter((r) => open(r)?.email === 'eager@example.com');
    expect(eager.map((r) => r.spam_reason)).toEqual([null, null, null, 'rate_limited', 'rate_limited', 'rate_limited']);
    // Another visitor is not held back by this one.
    await post('formsite', 'patient-visitor').type('form').send({ 'form-name': 'signup', email: 'p@example.com' }).expect(200);
  });

  it('rate-limits per address too, whatever the user agent: a bot changing it on every post is held at the address allowance', async () => {
    const strict = await startTestApp({ sibling: t, env: { FORMS_RATE_LIMIT_MAX: '3', FORMS_RATE_LIMIT_ADDRESS_MAX: '4', TRUST_PROXY: '1' } });
    try {
      const send = (i: number) =>
        site(strict, 'formsite')
          .post('/')
          .set('User-Agent', `rotating-${i}`)
          // An address of its own: the posts of the other tests from 127.0.0.1 share one counter in this window.
          .set('X-Forwarded-For', '203.0.113.77')
          .type('form')
          .send({ 'form-name': 'signup', email: 'rotating@example.com' });
      // Each post is a new visitor to the per-visitor allowance (3): only the address's (4) counts them all.
      for (let i = 0; i < 8; i++) await send(i).expect(200);
      const refused = await send(8).expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const rotating = (await submissions()).filter((r) => open(r)?.email === 'rotating@example.com');
      expect(rotating.map((r) => r.spam_reason)).toEqual([null, null, null, null, 'rate_limited', 'rate_limited', 'rate_limited', 'rate_limited']);
    } finally {
      await strict.close();
    }
  });

  it('with analytics off, counts one address in one allowance across instances (their counters share a key)', async () => {
    const env = { ANALYTICS_ENABLED: 'false', FORMS_RATE_LIMIT_MAX: '3', FORMS_RATE_LIMIT_ADDRESS_MAX: '4', TRUST_PROXY: '1' };
    const one = await startTestApp({ sibling: t, env });
    const two = await startTestApp({ sibling: t, env });
    try {
      const send = (i: number) =>
        site(i % 2 === 0 ? one : two, 'formsite')
          .post('/')
          .set('User-Agent', `balanced-${i}`)
          .set('X-Forwarded-For', '203.0.113.78')
          .type('form')
          .send({ 'form-name': 'signup', email: 'balanced@example.com' });
      for (let i = 0; i < 8; i++) await send(i).expect(200);
      await send(8).expect(429);
      const balanced = (await submissions()).filter((r) => open(r)?.email === 'balanced@example.com');
      expect(balanced.filter((r) => r.spam_reason === null)).toHaveLength(4);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('counts a visitor’s posts in one allowance whether or not an endpoint listens; spam past it is heard by no endpoint', async () => {
    // Without a listener a post and its rate counter are one statement; with one, the
    // counter is consumed first through the limiter. Both count in the same row.
    const send = () => post('formsite', 'switching-visitor').type('form').send({ 'form-name': 'signup', email: 'switch@example.com' });
    for (let i = 0; i < 2; i++) await send().expect(200);
    const hook = await t
      .http()
      .post('/webhooks')
      .set(asUser(session))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['form.submitted'] })
      .expect(201);
    try {
      for (let i = 0; i < 4; i++) await send().expect(200);
      const refused = await send().expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const mine = (await submissions()).filter((r) => open(r)?.email === 'switch@example.com');
      expect(mine.map((r) => r.spam_reason)).toEqual([null, null, null, 'rate_limited', 'rate_limited', 'rate_limited']);
      // The one post within the allowance after the endpoint came is the one it hears.
      const queued: { n: number }[] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND event_type = 'form.submitted'`,
        [hook.body.id],
      );
      expect(queued[0].n).toBe(1);
    } finally {
      await t.http().delete(`/webhooks/${hook.body.id}`).set(asUser(session)).expect(204);
    }
    await send().expect(429);
  });

  it('puts a post in the digest of a member who wants one, with no endpoint in the workspace', async () => {
    await verifyEmail(t, session);
    const items = async () =>
      (
        (await t.dataSource.query(`SELECT count(*)::int AS n FROM notification_digest_items WHERE user_id = $1 AND kind = 'form'`, [session.userId])) as {
          n: number;
        }[]
      )[0].n;
    const before = await items();
    await digest('daily');
    try {
      await post('formsite', 'digest-visitor').type('form').send({ 'form-name': 'signup', email: 'digest@example.com' }).expect(200);
      expect(await items()).toBe(before + 1);
    } finally {
      await digest('off');
    }
    await post('formsite', 'digest-visitor').type('form').send({ 'form-name': 'signup', email: 'digest2@example.com' }).expect(200);
    expect(await items()).toBe(before + 1);
  });

  it('answers 404 to a post whose project is deleted while it is being stored, with a digest waiting: nothing is kept, never a 500', async () => {
    await verifyEmail(t, session);
    await deploySite(t, token, 'goneform', [{ path: 'index.html', content: SIGNUP }]);
    await digest('daily');
    const bus = t.app.get(EventBus);
    const plan = bus.plan.bind(bus);
    // The project goes after the post found its form and planned its digest item, before the write.
    jest.spyOn(bus, 'plan').mockImplementationOnce(async (...args: Parameters<EventBus['plan']>) => {
      const planned = await plan(...args);
      await t.dataSource.query(`DELETE FROM projects WHERE slug = 'goneform'`);
      return planned;
    });
    try {
      const res = await post('goneform', 'gone-visitor').type('form').send({ 'form-name': 'signup', email: 'late@example.com' });
      expect(res.status).toBe(404);
      expect(res.text).toContain('This site no longer exists');
      expect(
        await t.dataSource.query(`SELECT 1 FROM notification_digest_items i WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = i.project_id)`),
      ).toEqual([]);
    } finally {
      jest.restoreAllMocks();
      await digest('off');
    }
  });

  it('leaves sites without forms as they were: a POST is 405', async () => {
    const res = await post('noforms', 'visitor-f').type('form').send({ 'form-name': 'x', q: '1' }).expect(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('needs the password gate cookie on a gated site', async () => {
    await t
      .http()
      .post('/projects')
      .set(asUser(session))
      .send({ name: 'Gated', slug: 'gatedforms', type: 'static_site', gate_type: 'password', password: 'open sesame 42' })
      .expect(201);
    await deploySite(t, token, 'gatedforms', [{ path: 'index.html', content: SIGNUP }]);
    const stored = () => t.dataSource.query(`SELECT s.id FROM form_submissions s JOIN projects p ON p.id = s.project_id WHERE p.slug = 'gatedforms'`);
    const refused = await post('gatedforms', 'visitor-g').type('form').send({ 'form-name': 'signup', email: 'g@example.com' }).expect(401);
    expect(refused.text).toContain('type="password"');
    expect(await stored()).toHaveLength(0);
    const login = await site(t, 'gatedforms').post('/.statichost/gate').type('form').send({ password: 'open sesame 42', next: '/' }).expect(303);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    await post('gatedforms', 'visitor-g').set('Cookie', cookie).type('form').send({ 'form-name': 'signup', email: 'g@example.com' }).expect(200);
    expect(await stored()).toHaveLength(1);
  });

  it("registers a deployment's forms as the project's forms on deployment.created, in the deploy's transaction", async () => {
    const deployed = await deploySite(t, token, 'registered', [{ path: 'index.html', content: CONTACT }]);
    const [project] = await t.dataSource.query(`SELECT id, workspace_id FROM projects WHERE slug = 'registered'`);
    await t.dataSource.transaction((m) =>
      t.app.get(EventBus).emit(m, {
        type: 'deployment.created',
        workspaceId: project.workspace_id,
        timestamp: new Date(),
        data: {
          projectId: project.id,
          projectSlug: 'registered',
          deploymentId: deployed.id,
          version: deployed.version,
          url: deployed.url,
          live: true,
          createdBy: 'test',
        },
      }),
    );
    const forms = await t.dataSource.query(
      'SELECT name, fields, (SELECT count(*)::int FROM form_counters c WHERE c.form_id = f.id) AS counter_rows FROM forms f WHERE project_id = $1',
      [project.id],
    );
    expect(forms).toEqual([{ name: 'contact', fields: ['name', 'message'], counter_rows: 0 }]);
  });
  it('a deploy while a submission of one of its forms is erased waits for the erasure instead of deadlocking with it', async () => {
    const [{ id: formId, workspace_id: workspaceId }] = await t.dataSource.query(
      `SELECT f.id, p.workspace_id FROM forms f JOIN projects p ON p.id = f.project_id WHERE p.slug = 'formsite' AND f.name = 'contact'`,
    );
    // An erasure in the middle of its transaction: it holds the form's row and writes its
    // audit entry next. A deploy wrote its own entry first and then waited for the form's
    // row (registering the forms it declares): each waited for the other.
    const erasure = t.dataSource.createQueryRunner();
    await erasure.connect();
    await erasure.startTransaction();
    try {
      await erasure.query('SELECT id FROM forms WHERE id = $1 FOR UPDATE', [formId]);
      const deploy = deploySite(t, token, 'formsite', [
        { path: 'index.html', content: CONTACT },
        { path: 'thanks/index.html', content: '<h1>Thanks again!</h1>' },
      ]);
      deploy.catch(() => undefined);
      await someoneWaits(t);
      await t.app.get(AuditLogService).record(erasure.manager, {
        workspaceId,
        action: 'form_submission.erased',
        target: { type: 'form_submission', id: 'sub_underlock', label: 'contact' },
      });
      await erasure.commitTransaction();
      await expect(deploy).resolves.toMatchObject({ id: expect.stringMatching(/^dep_/) });
    } finally {
      if (erasure.isTransactionActive) await erasure.rollbackTransaction();
      await erasure.release();
    }
  });
});
