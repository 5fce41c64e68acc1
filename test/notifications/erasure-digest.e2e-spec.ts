import { EventBus } from '../../src/events/event-bus';
import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject, submitEmail } from '../helpers/email-gate';
import { plainProject, type SeededForm, type SeededSubmission, seedForm, seedSubmission } from '../helpers/forms';
import { asUser, bearer, registerUser, type UserSession, verifyEmail } from '../helpers/identity';

/**
 * Erasure (issue 30: "DELETE one submission (erasure) and all of a form's"; a lead's
 * erasure before it) reaches every copy of what the visitor typed, not only the row: a
 * digest waiting to be mailed holds the same fields or email, sealed, until its hour comes.
 */
describe('Erasing submissions and leads reaches the waiting digest (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let form: SeededForm;
  const subsPath = (query = '') => `/projects/${form.projectId}/forms/${form.id}/submissions${query}`;
  const digestRefs = async (kind = 'form'): Promise<string[]> =>
    ((await t.dataSource.query(`SELECT ref_id FROM notification_digest_items WHERE kind = $1 ORDER BY ref_id`, [kind])) as { ref_id: string }[]).map(
      (r) => r.ref_id,
    );

  /** A submission as the intake stores it: the row, and in the same transaction its `form.submitted` event. */
  const submitted = async (fields: Record<string, string>): Promise<SeededSubmission> => {
    const sub = await seedSubmission(t, form, fields, { createdAt: new Date() });
    await t.dataSource.transaction((m) =>
      t.app.get(EventBus).emit(m, {
        type: 'form.submitted',
        workspaceId: form.workspaceId,
        timestamp: new Date(),
        data: { projectId: form.projectId, projectSlug: 'erasure-site', formId: form.id, formName: form.name, submissionId: sub.id },
        personal: { fields },
      }),
    );
    return sub;
  };

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    await verifyEmail(t, alice);
    await t
      .http()
      .put('/users/me/notifications')
      .set(bearer(alice.accessToken))
      .send({ workspaceId: alice.workspaceId, buildFailed: false, domainFailed: false, digest: 'daily' })
      .expect(200);
    form = await seedForm(t, await plainProject(t, alice, 'erasure-site'), 'contact', ['name', 'message']);
  });
  afterAll(() => t?.close());

  it('DELETE one takes its waiting digest entry with it, and leaves the others', async () => {
    const erased = await submitted({ name: 'Erin Erased', message: 'forget me' });
    const kept = await submitted({ name: 'Kim Kept', message: 'keep me' });
    expect(await digestRefs()).toEqual([erased.id, kept.id].sort());

    await t
      .http()
      .delete(subsPath(`/${erased.id}`))
      .set(asUser(alice))
      .expect(204);
    expect(await digestRefs()).toEqual([kept.id]);
  });

  it('DELETE all takes every waiting digest entry of the form', async () => {
    await submitted({ name: 'Another', message: 'also me' });
    expect((await digestRefs()).length).toBe(2);

    await t.http().delete(subsPath()).set(asUser(alice)).expect(204);
    expect(await digestRefs()).toEqual([]);
  });

  it('erasing a lead takes its waiting digest entry with it, and leaves the others', async () => {
    const projectId = await emailGatedProject(t, alice, 'erasure-gated');
    await submitEmail(t, 'erasure-gated', 'erase.me@example.org').expect(303);
    await submitEmail(t, 'erasure-gated', 'keep.me@example.org').expect(303);
    const leads = (await t.http().get(`/projects/${projectId}/gate/leads`).set(asUser(alice)).expect(200)).body.data as { id: string; email: string }[];
    const erased = leads.find((l) => l.email === 'erase.me@example.org')!;
    const kept = leads.find((l) => l.email === 'keep.me@example.org')!;
    expect(await digestRefs('lead')).toEqual([erased.id, kept.id].sort());

    await t.http().delete(`/projects/${projectId}/gate/leads/${erased.id}`).set(asUser(alice)).expect(204);
    expect(await digestRefs('lead')).toEqual([kept.id]);
  });
});
