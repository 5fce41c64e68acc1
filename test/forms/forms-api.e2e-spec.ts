import { startTestApp, type TestApp } from '../helpers/app';
import { plainProject, type SeededForm, type SeededSubmission, seedForm, seedSubmission } from '../helpers/forms';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

type Body = { id: string; fields: Record<string, string>; spam: boolean; spamReason: string | null; createdAt: string };

/**
 * Reading forms (issue 30): the forms of a project, their submissions decrypted page by
 * page, search within the sealed values, the spam filter and toggle, the CSV export,
 * erasure. Forms and submissions are seeded sealed with the app's keyring, as the
 * intake writes them.
 */
describe('Forms API: list, submissions, search, spam, CSV, erasure (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let bob: UserSession;
  let site: string;
  let other: string;
  let contact: SeededForm;
  let newsletter: SeededForm;
  let moderated: SeededForm;
  let bobForm: SeededForm;
  let bobSubmission: SeededSubmission;
  const contactSubs: SeededSubmission[] = [];
  let tick = Date.parse('2030-06-01T12:00:00.000Z');
  const next = () => new Date((tick += 60_000));

  const as = (who: UserSession = alice) => asUser(who);
  const subsPath = (form: SeededForm, query = '') => `/projects/${form.projectId}/forms/${form.id}/submissions${query}`;
  const newestFirst = (list: SeededSubmission[]) => [...list].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  const ham = () => contactSubs.filter((s) => !s.spam);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
    site = await plainProject(t, alice, 'forms-api-site');
    other = await plainProject(t, alice, 'forms-api-other');
    const bobSite = await plainProject(t, bob, 'forms-api-bob');
    contact = await seedForm(t, site, 'contact', ['name', 'email', 'message']);
    newsletter = await seedForm(t, site, 'newsletter', ['email']);
    moderated = await seedForm(t, other, 'feedback', ['comment']);
    bobForm = await seedForm(t, bobSite, 'contact', ['name', 'email', 'message']);
    for (let i = 1; i <= 21; i++) {
      const n = String(i).padStart(2, '0');
      contactSubs.push(
        await seedSubmission(t, contact, { name: `Visitor ${n}`, email: `visitor${n}@list.example`, message: `Message number ${n}` }, { createdAt: next() }),
      );
    }
    for (const fields of [
      { name: '=HYPERLINK("http://evil.example")', email: '+1@quirks.example', message: 'Price, "quoted"\nsecond line' },
      { name: 'Zoë Ünïcode', email: 'ZOE@Mixed.Example', message: '100% sure' } as Record<string, string>,
      { name: 'Old Form', email: 'old@quirks.example', message: 'had a phone field', phone: '@555' },
    ]) {
      contactSubs.push(await seedSubmission(t, contact, fields, { createdAt: next() }));
    }
    for (let i = 1; i <= 3; i++) {
      contactSubs.push(
        await seedSubmission(t, contact, { name: `Bot ${i}`, email: `bot${i}@spam.example`, message: 'cheap pills' }, { createdAt: next(), spam: true }),
      );
    }
    bobSubmission = await seedSubmission(t, bobForm, { name: 'Bob’s visitor', email: 'visitor01@list.example', message: 'hello' }, { createdAt: next() });
  });
  afterAll(() => t?.close());

  describe('GET /projects/:projectId/forms', () => {
    it('lists the project’s forms by name with fields, counts and the last submission', async () => {
      const res = await t.http().get(`/projects/${site}/forms`).set(as()).expect(200);
      const lastHam = newestFirst(ham())[0].createdAt;
      expect(res.body.data).toEqual([
        {
          id: contact.id,
          name: 'contact',
          fields: ['name', 'email', 'message'],
          submissionCount: ham().length,
          spamCount: 3,
          lastSubmissionAt: lastHam,
          createdAt: expect.stringMatching(/Z$/),
        },
        { id: newsletter.id, name: 'newsletter', fields: ['email'], submissionCount: 0, spamCount: 0, lastSubmissionAt: null, createdAt: expect.any(String) },
      ]);
    });

    it('answers 404 for another workspace’s project, never its forms', async () => {
      const res = await t.http().get(`/projects/${site}/forms`).set(as(bob)).expect(404);
      expect(res.body.code).toBe('not_found');
    });
  });

  describe('GET /projects/:projectId/forms/:formId/submissions', () => {
    it('pages through the submissions newest first, decrypted, in the spec’s envelope', async () => {
      const all = newestFirst(contactSubs);
      const first = await t.http().get(subsPath(contact)).set(as()).expect(200);
      expect(first.body.meta).toEqual({ total: all.length, page: 1, limit: 20, totalPages: 2 });
      expect(first.body.data.map((s: Body) => s.id)).toEqual(all.slice(0, 20).map((s) => s.id));
      expect(first.body.data.map((s: Body) => s.fields)).toEqual(all.slice(0, 20).map((s) => s.fields));
      expect(first.body.data[0]).toEqual({
        id: all[0].id,
        formId: contact.id,
        fields: all[0].fields,
        spam: true,
        spamReason: 'honeypot',
        leadId: null,
        deploymentId: 'dep_seeded',
        createdAt: all[0].createdAt,
      });
      const second = await t.http().get(subsPath(contact, '?page=2')).set(as()).expect(200);
      expect(second.body.data.map((s: Body) => s.id)).toEqual(all.slice(20).map((s) => s.id));
      const small = await t.http().get(subsPath(contact, '?page=3&limit=5')).set(as()).expect(200);
      expect(small.body.data.map((s: Body) => s.id)).toEqual(all.slice(10, 15).map((s) => s.id));
      expect(small.body.meta).toEqual({ total: all.length, page: 3, limit: 5, totalPages: Math.ceil(all.length / 5) });
    });

    it('keeps the order the visitor sent the fields in', async () => {
      const res = await t.http().get(subsPath(contact, '?search=had a phone')).set(as()).expect(200);
      expect(Object.keys(res.body.data[0].fields)).toEqual(['name', 'email', 'message', 'phone']);
    });

    it('filters by spam', async () => {
      const spam = await t.http().get(subsPath(contact, '?spam=true')).set(as()).expect(200);
      expect(spam.body.data.map((s: Body) => s.id)).toEqual(newestFirst(contactSubs.filter((s) => s.spam)).map((s) => s.id));
      expect(spam.body.meta.total).toBe(3);
      const notSpam = await t.http().get(subsPath(contact, '?spam=false&limit=100')).set(as()).expect(200);
      expect(notSpam.body.data.map((s: Body) => s.id)).toEqual(newestFirst(ham()).map((s) => s.id));
      expect(notSpam.body.data.every((s: Body) => !s.spam && s.spamReason === null)).toBe(true);
    });

    it.each([
      ['visitor0', 9, 'a substring of an email'],
      ['VISITOR 1', 10, 'case-insensitively, across the name'],
      ['zoe@mixed', 1, 'an address stored in mixed case'],
      ['zoë ünï', 1, 'beyond ASCII'],
      ['100%', 1, 'a % literally'],
      ['"quoted"', 1, 'quotes literally'],
      ['message number 2', 2, 'a term spanning words'],
      ['21', 1, 'two characters (no trigram: every row is a candidate)'],
      ['@555', 1, 'a field the form no longer declares'],
      ['nobody-has-this', 0, 'nothing'],
    ])('searches within the sealed values: %s (%s)', async (search, count) => {
      const res = await t.http().get(subsPath(contact)).query({ search, limit: 100 }).set(as()).expect(200);
      expect(res.body.meta.total).toBe(count);
      const term = search.toLowerCase();
      const expected = newestFirst(contactSubs).filter((s) => Object.values(s.fields).some((v) => v.toLowerCase().includes(term)));
      expect(res.body.data.map((s: Body) => s.id)).toEqual(expected.map((s) => s.id));
    });

    it('pages a search, and combines it with the spam filter', async () => {
      const matching = newestFirst(contactSubs).filter((s) => s.fields.email.toLowerCase().includes('.example'));
      const page2 = await t.http().get(subsPath(contact, '?search=.example&page=2&limit=10')).set(as()).expect(200);
      expect(page2.body.meta).toEqual({ total: matching.length, page: 2, limit: 10, totalPages: Math.ceil(matching.length / 10) });
      expect(page2.body.data.map((s: Body) => s.id)).toEqual(matching.slice(10, 20).map((s) => s.id));
      const spam = await t.http().get(subsPath(contact, '?search=pills&spam=true')).set(as()).expect(200);
      expect(spam.body.meta.total).toBe(3);
      const none = await t.http().get(subsPath(contact, '?search=pills&spam=false')).set(as()).expect(200);
      expect(none.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    });

    it('never shows another workspace’s submissions, even for a search that matches them', async () => {
      const res = await t.http().get(subsPath(contact, '?search=visitor01&limit=100')).set(as()).expect(200);
      expect(res.body.data.map((s: Body) => s.id)).not.toContain(bobSubmission.id);
      expect(res.body.meta.total).toBe(1);
    });

    it.each([
      ['page=0', 'page'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['spam=yes', 'spam'],
      [`search=${'x'.repeat(201)}`, 'search'],
      ['sort=name', 'sort'],
    ])('refuses %s with a 400 naming %s', async (query, name) => {
      const res = await t
        .http()
        .get(subsPath(contact, `?${query}`))
        .set(as())
        .expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain(name);
    });
  });

  describe('who may read and change them', () => {
    it('answers 404 for another workspace’s form, a form of another project, or a submission of another form', async () => {
      await t.http().get(subsPath(bobForm)).set(as()).expect(404);
      await t.http().get(`/projects/${site}/forms/${bobForm.id}/submissions`).set(as()).expect(404);
      await t.http().get(`/projects/${other}/forms/${contact.id}/submissions`).set(as()).expect(404);
      await t.http().get(`/projects/${bob.workspaceId}/forms`).set(as()).expect(404);
      const patch = await t
        .http()
        .patch(`${subsPath(contact)}/${bobSubmission.id}`)
        .set(as())
        .send({ spam: true })
        .expect(404);
      expect(patch.body.code).toBe('not_found');
      await t
        .http()
        .delete(`${subsPath(contact)}/${bobSubmission.id}`)
        .set(as())
        .expect(404);
      await t
        .http()
        .delete(`${subsPath(bobForm)}/${bobSubmission.id}`)
        .set(as())
        .expect(404);
      await t.http().delete(subsPath(bobForm)).set(as()).expect(404);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE id = $1 AND spam = false', [bobSubmission.id]);
      expect(n).toBe(1);
    });

    it('lets a read-only token read and export, but not mark or erase', async () => {
      const reader = await createApiToken(t, alice, { scopes: ['read'] });
      await t.http().get(`/projects/${site}/forms`).set(bearer(reader.token)).expect(200);
      await t
        .http()
        .get(`${subsPath(contact)}/export`)
        .set(bearer(reader.token))
        .expect(200);
      const id = contactSubs[0].id;
      await t
        .http()
        .patch(`${subsPath(contact)}/${id}`)
        .set(bearer(reader.token))
        .send({ spam: true })
        .expect(403);
      await t
        .http()
        .delete(`${subsPath(contact)}/${id}`)
        .set(bearer(reader.token))
        .expect(403);
      await t.http().delete(subsPath(contact)).set(bearer(reader.token)).expect(403);
    });

    it('lets a token bound to another project see nothing of this one', async () => {
      const bound = await createApiToken(t, alice, { scopes: ['read', 'delete'], projectId: other });
      await t.http().get(`/projects/${site}/forms`).set(bearer(bound.token)).expect(404);
      await t.http().get(`/projects/${other}/forms`).set(bearer(bound.token)).expect(200);
    });
  });

  describe('GET …/submissions/export', () => {
    it('streams every submission as formula-safe CSV, the form’s fields as columns', async () => {
      const res = await t
        .http()
        .get(`${subsPath(contact)}/export`)
        .set(as())
        .expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="forms-api-site-contact-submissions.csv"');
      expect(res.headers['cache-control']).toBe('private, no-store');
      const text = res.text;
      const all = newestFirst(contactSubs);
      expect(text.startsWith('id,createdAt,spam,name,email,message,otherFields\r\n')).toBe(true);
      const formula = all.find((s) => s.fields.name.startsWith('='))!;
      expect(text).toContain(
        `${formula.id},${formula.createdAt},false,"'=HYPERLINK(""http://evil.example"")",'+1@quirks.example,"Price, ""quoted""\nsecond line",\r\n`,
      );
      const old = all.find((s) => s.fields.phone)!;
      expect(text).toContain(`${old.id},${old.createdAt},false,Old Form,old@quirks.example,had a phone field,"{""phone"":""@555""}"\r\n`);
      // One record per submission, newest first.
      const ids = [...text.matchAll(/^(fsub_[^,]+),/gm)].map((m) => m[1]);
      expect(ids).toEqual(all.map((s) => s.id));
    });

    it('filters as the list does', async () => {
      const res = await t
        .http()
        .get(`${subsPath(contact)}/export?search=visitor1&spam=false`)
        .set(as())
        .expect(200);
      const ids = [...res.text.matchAll(/^(fsub_[^,]+),/gm)].map((m) => m[1]);
      expect(ids).toEqual(
        newestFirst(ham())
          .filter((s) => s.fields.name.toLowerCase().includes('visitor 1') || s.fields.email.includes('visitor1'))
          .map((s) => s.id),
      );
      expect(ids.length).toBe(10);
      await t
        .http()
        .get(`${subsPath(contact)}/export?spam=maybe`)
        .set(as())
        .expect(400);
      await t
        .http()
        .get(`${subsPath(bobForm)}/export`)
        .set(as())
        .expect(404);
    });
  });

  describe('PATCH …/submissions/:submissionId', () => {
    let subs: SeededSubmission[];
    beforeAll(async () => {
      subs = [];
      for (const comment of ['great site', 'buy now', 'older']) subs.push(await seedSubmission(t, moderated, { comment }, { createdAt: next() }));
    });
    const counts = async () => (await t.http().get(`/projects/${other}/forms`).set(as()).expect(200)).body.data[0];

    it('marks spam and ham, the counters and last submission follow, and repeating it changes nothing', async () => {
      const [great, buy] = subs;
      const newest = subs[subs.length - 1];
      expect(await counts()).toMatchObject({ submissionCount: 3, spamCount: 0, lastSubmissionAt: newest.createdAt });
      const res = await t
        .http()
        .patch(`${subsPath(moderated)}/${newest.id}`)
        .set(as())
        .send({ spam: true })
        .expect(200);
      expect(res.body).toMatchObject({ id: newest.id, fields: { comment: 'older' }, spam: true, spamReason: 'user' });
      expect(await counts()).toMatchObject({ submissionCount: 2, spamCount: 1, lastSubmissionAt: buy.createdAt });
      await t
        .http()
        .patch(`${subsPath(moderated)}/${newest.id}`)
        .set(as())
        .send({ spam: true })
        .expect(200);
      expect(await counts()).toMatchObject({ submissionCount: 2, spamCount: 1 });
      const back = await t
        .http()
        .patch(`${subsPath(moderated)}/${newest.id}`)
        .set(as())
        .send({ spam: false })
        .expect(200);
      expect(back.body).toMatchObject({ spam: false, spamReason: null });
      expect(await counts()).toMatchObject({ submissionCount: 3, spamCount: 0, lastSubmissionAt: newest.createdAt });
      expect(great).toBeDefined();
    });

    it.each([
      [{}, 'spam'],
      [{ spam: 'yes' }, 'spam'],
      [{ spam: 1 }, 'spam'],
      [{ spam: true, fields: { comment: 'x' } }, 'fields'],
    ])('refuses the body %j with a 400 naming %s and changes nothing', async (body, name) => {
      const res = await t
        .http()
        .patch(`${subsPath(moderated)}/${subs[0].id}`)
        .set(as())
        .send(body)
        .expect(400);
      expect(res.body.message).toContain(name);
      expect(await counts()).toMatchObject({ submissionCount: 3, spamCount: 0 });
    });

    it('answers 404 for an unknown submission', async () => {
      const res = await t
        .http()
        .patch(`${subsPath(moderated)}/fsub_doesnotexist`)
        .set(as())
        .send({ spam: true })
        .expect(404);
      expect(res.body.message).toContain('fsub_doesnotexist');
    });
  });

  describe('sealed rows', () => {
    it('leaves out (and logs) a submission whose ciphertext was altered or moved to another form, never shows garbage', async () => {
      const form = await seedForm(t, other, 'tamper', ['note']);
      const kept = await seedSubmission(t, form, { note: 'intact' }, { createdAt: next() });
      const altered = await seedSubmission(t, form, { note: 'altered' }, { createdAt: next() });
      const moved = await seedSubmission(t, moderated, { comment: 'moved' }, { createdAt: next() });
      await t.dataSource.query(`UPDATE form_submissions SET ciphertext = set_byte(ciphertext, 0, get_byte(ciphertext, 0) # 1) WHERE id = $1`, [altered.id]);
      await t.dataSource.query('UPDATE form_submissions SET form_id = $1 WHERE id = $2', [form.id, moved.id]);
      const res = await t.http().get(subsPath(form, '?limit=100')).set(as()).expect(200);
      expect(res.body.data.map((s: Body) => s.fields)).toEqual([{ note: 'intact' }]);
      expect(res.body.data[0].id).toBe(kept.id);
      expect(t.logs.some((l) => l.includes(altered.id) && l.includes('failed authentication'))).toBe(true);
      expect(t.logs.some((l) => l.includes(moved.id) && l.includes('failed authentication'))).toBe(true);
      const raw: { ciphertext: Buffer }[] = await t.dataSource.query('SELECT ciphertext FROM form_submissions WHERE form_id = $1', [form.id]);
      for (const { ciphertext } of raw) for (const plain of ['intact', 'altered', 'moved']) expect(ciphertext.includes(Buffer.from(plain))).toBe(false);
    });
  });

  describe('erasure', () => {
    it('DELETE one erases its row and ciphertext and lowers the right counter', async () => {
      const [target] = newestFirst(ham());
      const spam = contactSubs.find((s) => s.spam)!;
      await t
        .http()
        .delete(`${subsPath(contact)}/${target.id}`)
        .set(as())
        .expect(204);
      await t
        .http()
        .delete(`${subsPath(contact)}/${spam.id}`)
        .set(as())
        .expect(204);
      const raw = await t.dataSource.query('SELECT id FROM form_submissions WHERE id = ANY($1)', [[target.id, spam.id]]);
      expect(raw).toEqual([]);
      const listed = await t.http().get(subsPath(contact, '?limit=100')).set(as()).expect(200);
      expect(listed.body.data.map((s: Body) => s.id)).not.toContain(target.id);
      expect(listed.body.meta.total).toBe(contactSubs.length - 2);
      const [form] = (await t.http().get(`/projects/${site}/forms`).set(as()).expect(200)).body.data;
      expect(form).toMatchObject({ submissionCount: ham().length - 1, spamCount: 2, lastSubmissionAt: newestFirst(ham())[1].createdAt });
      await t
        .http()
        .delete(`${subsPath(contact)}/${target.id}`)
        .set(as())
        .expect(404);
    });

    it('DELETE all erases every submission of the form and only of that form; the form stays', async () => {
      await t.http().delete(subsPath(contact)).set(as()).expect(204);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM form_submissions WHERE form_id = $1', [contact.id]);
      expect(n).toBe(0);
      const forms = (await t.http().get(`/projects/${site}/forms`).set(as()).expect(200)).body.data;
      expect(forms[0]).toMatchObject({ id: contact.id, submissionCount: 0, spamCount: 0, lastSubmissionAt: null });
      const list = await t.http().get(subsPath(contact)).set(as()).expect(200);
      expect(list.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
      const bobs = await t.http().get(subsPath(bobForm)).set(as(bob)).expect(200);
      expect(bobs.body.data.map((s: Body) => s.id)).toEqual([bobSubmission.id]);
      const theirs = await t.http().get(subsPath(moderated)).set(as()).expect(200);
      expect(theirs.body.meta.total).toBe(3);
      await t.http().delete(subsPath(contact)).set(as()).expect(204);
    });
  });
});
