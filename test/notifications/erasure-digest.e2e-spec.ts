import { EventBus } from '../../src/events/event-bus';
import { startTestApp, type TestApp } from '../helpers/app';
import { emailGatedProject, submitEmail } from '../helpers/email-gate';
import { plainProject, type SeededForm, type SeededSubmission, seedForm, seedSubmission } from '../helpers/forms';
import { asUser, bearer, registerUser, type UserSession, verifyEmail } from '../helpers/identity';

/**
 * Erasure (issue 30: "DELETE one submission (erasure) and all of a form's"; a lead's
 * erasure before it) reaches every copy of what the visitor typed, not only the row: a
 * digest waiting to be mailed holds the same fields or email, sealed, until its hour comes,
 * and so does the record of a webhook delivery to an endpoint with `includePersonalData`.
 */
describe('Erasing submissions and leads reaches the waiting digest and the webhook deliveries (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let form: SeededForm;
  let personalHook: string;
  let idsOnlyHook: string;
  const subsPath = (query = '') => `/projects/${form.projectId}/forms/${form.id}/submissions${query}`;
  const digestRefs = async (kind = 'form'): Promise<string[]> =>
    ((await t.dataSource.query(`SELECT ref_id FROM notification_digest_items WHERE kind = $1 ORDER BY ref_id`, [kind])) as { ref_id: string }[]).map(
      (r) => r.ref_id,
    );
  const deliveriesOf = async (webhookId: string): Promise<number> =>
    ((await t.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhookId])) as { n: number }[])[0].n;

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
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    alice = await registerUser(t);
    await verifyEmail(t, alice);
    await t
      .http()
      .put('/users/me/notifications')
      .set(bearer(alice.accessToken))
      .send({ workspaceId: alice.workspaceId, buildFailed: false, domainFailed: false, digest: 'daily' })
      .expect(200);
    const hook = async (includePersonalData: boolean) =>
      (
        await t
          .http()
          .post('/webhooks')
          .set(asUser(alice))
          .send({ url: 'http://127.0.0.1:9/hook', events: ['lead.captured', 'form.submitted'], includePersonalData })
          .expect(201)
      ).body.id as string;
    personalHook = await hook(true);
    idsOnlyHook = await hook(false);
    form = await seedForm(t, await plainProject(t, alice, 'erasure-site'), 'contact', ['name', 'message']);
  });
  afterAll(() => t?.close());

  it('DELETE one takes its waiting digest entry and its personal webhook deliveries with it, and leaves the others', async () => {
    const erased = await submitted({ name: 'Erin Erased', message: 'forget me' });
    const kept = await submitted({ name: 'Kim Kept', message: 'keep me' });
    expect(await digestRefs()).toEqual([erased.id, kept.id].sort());
    expect([await deliveriesOf(personalHook), await deliveriesOf(idsOnlyHook)]).toEqual([2, 2]);

    await t
      .http()
      .delete(subsPath(`/${erased.id}`))
      .set(asUser(alice))
      .expect(204);
    expect(await digestRefs()).toEqual([kept.id]);
    // The delivery that holds the fields goes; the one with ids only has nothing to erase.
    expect([await deliveriesOf(personalHook), await deliveriesOf(idsOnlyHook)]).toEqual([1, 2]);
  });

  it('DELETE all takes every waiting digest entry and personal webhook delivery of the form', async () => {
    await submitted({ name: 'Another', message: 'also me' });
    expect((await digestRefs()).length).toBe(2);

    expect([await deliveriesOf(personalHook), await deliveriesOf(idsOnlyHook)]).toEqual([2, 3]);
    await t.http().delete(subsPath()).set(asUser(alice)).expect(204);
    expect(await digestRefs()).toEqual([]);
    expect([await deliveriesOf(personalHook), await deliveriesOf(idsOnlyHook)]).toEqual([0, 3]);
  });

  it('erasing a lead takes its waiting digest entry and its personal webhook deliveries with it, and leaves the others', async () => {
    const projectId = await emailGatedProject(t, alice, 'erasure-gated');
    await submitEmail(t, 'erasure-gated', 'erase.me@example.org').expect(303);
    await submitEmail(t, 'erasure-gated', 'keep.me@example.org').expect(303);
    const leads = (await t.http().get(`/projects/${projectId}/gate/leads`).set(asUser(alice)).expect(200)).body.data as { id: string; email: string }[];
    const erased = leads.find((l) => l.email === 'erase.me@example.org')!;
    const kept = leads.find((l) => l.email === 'keep.me@example.org')!;
    expect(await digestRefs('lead')).toEqual([erased.id, kept.id].sort());
    expect([await deliveriesOf(personalHook), await deliveriesOf(idsOnlyHook)]).toEqual([2, 5]);

    await t.http().delete(`/projects/${projectId}/gate/leads/${erased.id}`).set(asUser(alice)).expect(204);
    expect(await digestRefs('lead')).toEqual([kept.id]);
    expect([await deliveriesOf(personalHook), await deliveriesOf(idsOnlyHook)]).toEqual([1, 5]);
  });

  it('deleting the project takes every waiting digest entry about it with it', async () => {
    const projectId = await emailGatedProject(t, alice, 'erasure-deleted');
    await submitEmail(t, 'erasure-deleted', 'gone.with.project@example.org').expect(303);
    const about = () => t.dataSource.query(`SELECT 1 FROM notification_digest_items WHERE project_id = $1`, [projectId]);
    expect(await about()).toHaveLength(1);
    await t.http().delete(`/projects/${projectId}`).set(asUser(alice)).expect(204);
    expect(await about()).toEqual([]);
  });
});
