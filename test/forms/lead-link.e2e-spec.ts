import { signGateCookie } from '../../src/gates/gate-cookie';
import { startTestApp, type TestApp } from '../helpers/app';
import { cookieFrom, emailGatedProject, submitEmail } from '../helpers/email-gate';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

const GATE_SECRET = 'lead-link-gate-cookie-secret-0123456789';
const SIGNUP = `<!doctype html><title>Signup</title>
<form data-statichost-form="signup" method="post"><input type="hidden" name="form-name" value="signup">
<input name="message"><button>Send</button></form>`;

/**
 * Issue 30: an email gate's lead and a form submission from the same visitor are linked.
 * The gate's cookie names the lead (v2, under the cookie's MAC); the intake links it only
 * while it is still a lead of the project; erasing the lead unlinks its submissions.
 */
describe('Forms: a submission is linked to the email gate’s lead of the same visitor (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let projectId: string;
  let formId: string;
  let visitor = 0;

  beforeAll(async () => {
    t = await startTestApp({ env: { GATE_COOKIE_SECRET: GATE_SECRET, FORMS_RATE_LIMIT_MAX: '100' } });
    owner = await registerUser(t);
    const { token } = await createApiToken(t, owner, { scopes: ['deploy'] });
    projectId = await emailGatedProject(t, owner, 'leadlink');
    await deploySite(t, token, 'leadlink', [{ path: 'index.html', content: SIGNUP }]);
    // A second email-gated site of the same workspace: its leads are no leads of this one.
    await emailGatedProject(t, owner, 'leadlink-other');
  });
  afterAll(() => t?.close());

  /** Posts the form as `fetch` would, with this cookie; each call is another visitor for the rate limit. */
  const submit = (cookie: string | undefined, message: string) => {
    const req = site(t, 'leadlink').post('/').set('User-Agent', `lead-link-visitor-${visitor++}`).set('Accept', 'application/json').type('form');
    if (cookie) req.set('Cookie', cookie);
    return req.send({ 'form-name': 'signup', message });
  };
  const leads = async (): Promise<{ id: string; email: string }[]> =>
    (await t.http().get(`/projects/${projectId}/gate/leads`).set(asUser(owner)).expect(200)).body.data;
  const submission = async (id: string): Promise<{ id: string; leadId: string | null; fields: Record<string, string> }> => {
    if (!formId) {
      const forms = await t.http().get(`/projects/${projectId}/forms`).set(asUser(owner)).expect(200);
      formId = forms.body.data.find((f: { name: string }) => f.name === 'signup').id;
    }
    const page = await t.http().get(`/projects/${projectId}/forms/${formId}/submissions?limit=100`).set(asUser(owner)).expect(200);
    return page.body.data.find((s: { id: string }) => s.id === id);
  };
  const passGate = async (email: string): Promise<string> => cookieFrom(await submitEmail(t, 'leadlink', email).expect(303));
  const gateVersion = async (): Promise<number> =>
    ((await t.dataSource.query('SELECT gate_version FROM projects WHERE id = $1', [projectId])) as { gate_version: number }[])[0].gate_version;

  let adaCookie: string;
  let adaLead: string;
  let adaSubmission: string;

  it('links the submission of a visitor who passed the email gate to the lead the leads API lists', async () => {
    adaCookie = await passGate('ada@example.org');
    const [lead] = await leads();
    expect(lead.email).toBe('ada@example.org');
    adaLead = lead.id;
    // The cookie names an opaque lead id, never the email.
    expect(decodeURIComponent(adaCookie)).not.toMatch(/@|example/);

    const res = await submit(adaCookie, 'hello from ada').expect(200);
    adaSubmission = res.body.id;
    expect(await submission(adaSubmission)).toMatchObject({ leadId: adaLead, fields: { message: 'hello from ada' } });
  });

  it('gives a repeat visitor passing the gate again the same lead', async () => {
    const again = await passGate('ADA@example.org ');
    expect(again).toContain(`.${adaLead}.`);
    expect((await leads()).map((l) => l.id)).toEqual([adaLead]);
    const res = await submit(again, 'ada again').expect(200);
    expect((await submission(res.body.id)).leadId).toBe(adaLead);
  });

  it('still lets a v1 cookie (signed before cookies carried a lead) through the gate, with no lead', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const v1 = signGateCookie(Buffer.from(GATE_SECRET, 'utf8'), { projectId, gateVersion: await gateVersion(), expiresAt });
    const cookie = `statichost_gate=${v1}`;
    expect(v1.startsWith('v1.')).toBe(true);
    await site(t, 'leadlink').get('/').set('Cookie', cookie).expect(200);
    const res = await submit(cookie, 'from an old cookie').expect(200);
    expect((await submission(res.body.id)).leadId).toBeNull();
  });

  it('refuses as a gate cookie one whose lead id was swapped without its MAC, and stores nothing', async () => {
    await passGate('bob@example.org');
    const bob = (await leads()).find((l) => l.email === 'bob@example.org')!;
    const forged = adaCookie.replace(adaLead, bob.id);
    expect(forged).not.toBe(adaCookie);
    const before = await t.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE project_id = $1', [projectId]);
    const refused = await submit(forged, 'pretending to be bob').expect(401);
    expect(refused.text).toContain('type="email"');
    await site(t, 'leadlink').get('/').set('Cookie', forged).expect(401);
    const after = await t.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE project_id = $1', [projectId]);
    expect(after).toEqual(before);
  });

  it('does not link a lead of another project, even in a genuine cookie', async () => {
    const other = cookieFrom(await submitEmail(t, 'leadlink-other', 'cy@example.org').expect(303));
    const otherLead = /\.(lead_[0-9a-z]+)\./.exec(decodeURIComponent(other))![1];
    // Signed with the real secret for this site: only the lead is foreign.
    const value = signGateCookie(Buffer.from(GATE_SECRET, 'utf8'), {
      projectId,
      gateVersion: await gateVersion(),
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      leadId: otherLead,
    });
    const res = await submit(`statichost_gate=${value}`, 'a foreign lead').expect(200);
    expect((await submission(res.body.id)).leadId).toBeNull();
  });

  it('unlinks the lead’s submissions when it is erased, and does not link it again from the same cookie', async () => {
    expect((await submission(adaSubmission)).leadId).toBe(adaLead);
    await t.http().delete(`/projects/${projectId}/gate/leads/${adaLead}`).set(asUser(owner)).expect(204);
    expect((await leads()).map((l) => l.id)).not.toContain(adaLead);
    // The submission stays (it has its own erasure), no longer naming an erased lead.
    expect(await submission(adaSubmission)).toMatchObject({ leadId: null, fields: { message: 'hello from ada' } });

    // The cookie still opens the gate until it expires, but names a lead that is gone.
    const res = await submit(adaCookie, 'after erasure').expect(200);
    expect((await submission(res.body.id)).leadId).toBeNull();
    const dangling = await t.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE lead_id = $1', [adaLead]);
    expect(dangling[0].n).toBe(0);
  });

  it('names no lead in the password gate’s cookie', async () => {
    const res = await t
      .http()
      .post('/projects')
      .set(asUser(owner))
      .send({ name: 'Pw', slug: 'leadlink-pw', type: 'static_site', gate_type: 'password', password: 'open sesame 42' })
      .expect(201);
    expect(res.body.id).toMatch(/^proj_/);
    const login = await site(t, 'leadlink-pw').post('/.statichost/gate').type('form').send({ password: 'open sesame 42', next: '/' }).expect(303);
    expect(cookieFrom(login)).toMatch(/^statichost_gate=v1\./);
  });
});
