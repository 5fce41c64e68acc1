import { Webhook as StandardWebhook } from 'standardwebhooks';

import { Clock } from '../../src/common/time';
import { EventBus } from '../../src/events/event-bus';
import { type PlatformEvent, SUBSCRIBABLE_EVENT_TYPES } from '../../src/events/events';
import { MailService } from '../../src/mail/mail.service';
import { OutboxService, ROUND_BUDGET_MS } from '../../src/outbox/outbox.service';
import { WebhookDeliveriesPurge } from '../../src/webhooks/webhook-deliveries-purge.service';
import { MANUAL_SENDS_PER_MINUTE } from '../../src/webhooks/webhooks.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { eventually } from '../helpers/eventually';
import { addMember, asUser, registerUser, type UserSession } from '../helpers/identity';
import { signatureHeaders, startWebhookReceiver as startReceiver } from '../helpers/webhook-receiver';

/** One event of each subscribable type, with the data src/events/events.ts documents. */
function sampleEvents(workspaceId: string): PlatformEvent[] {
  const project = { projectId: 'proj_sample', projectSlug: 'sample' };
  const build = {
    ...project,
    buildId: 'bld_sample',
    branch: 'main',
    commitSha: 'a'.repeat(40),
    trigger: 'push',
    pullRequest: null,
    production: true,
    dashboardUrl: 'https://api.example.test/app/builds/bld_sample',
  };
  const timestamp = new Date();
  const events: PlatformEvent[] = [
    {
      type: 'deployment.created',
      workspaceId,
      timestamp,
      data: { ...project, deploymentId: 'dep_1', version: 1, url: 'https://x.example.test/', live: true, createdBy: 'usr_1' },
    },
    {
      type: 'deployment.promoted',
      workspaceId,
      timestamp,
      data: { ...project, deploymentId: 'dep_1', version: 1, url: 'https://x.example.test/', previousDeploymentId: null },
    },
    { type: 'deployment.archived', workspaceId, timestamp, data: { ...project, deploymentId: 'dep_1', version: 1, reason: 'replaced' } },
    { type: 'build.started', workspaceId, timestamp, data: build },
    { type: 'build.succeeded', workspaceId, timestamp, data: { ...build, deploymentId: 'dep_2', url: 'https://x.example.test/' } },
    { type: 'build.failed', workspaceId, timestamp, data: { ...build, error: 'npm run build exited with 1' } },
    { type: 'lead.captured', workspaceId, timestamp, data: { ...project, leadId: 'lead_1' }, personal: { email: 'visitor@example.test' } },
    {
      type: 'form.submitted',
      workspaceId,
      timestamp,
      data: { ...project, formId: 'frm_1', formName: 'contact', submissionId: 'fsub_1' },
      personal: { fields: { name: 'Ann', message: 'Hello' } },
    },
    { type: 'domain.verified', workspaceId, timestamp, data: { ...project, domain: 'www.example.test' } },
    { type: 'domain.failed', workspaceId, timestamp, data: { ...project, domain: 'www.example.test', reason: 'no CNAME' } },
    { type: 'usage.threshold', workspaceId, timestamp, data: { metric: 'storage', used: 80, limit: 100, percent: 80 } },
  ];
  expect(events.map((e) => e.type).sort()).toEqual([...SUBSCRIBABLE_EVENT_TYPES].sort());
  return events;
}

describe('Outgoing webhooks (e2e)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let a: TestApp;
  let b: TestApp;
  let owner: UserSession;

  beforeAll(async () => {
    receiver = await startReceiver();
    const env = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', JWT_SECRET: 'j'.repeat(40) };
    a = await startTestApp({ env });
    b = await startTestApp({ sibling: a, env });
    owner = await registerUser(a);
    // The registration's mail shares the outbox: sent now, so the reports below are the webhooks'.
    await a.app.get(OutboxService).runOnce();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.reset());
  afterEach(() => jest.restoreAllMocks());

  /** Both instances send at once, as their timers would: the advisory lock lets one through. */
  const sendFromBoth = () => Promise.all([a.app.get(OutboxService).runOnce(), b.app.get(OutboxService).runOnce()]);
  const emit = (t: TestApp, events: PlatformEvent[]) =>
    t.dataSource.transaction(async (m) => {
      for (const event of events) await t.app.get(EventBus).emit(m, event);
    });
  const create = async (body: Record<string, unknown>) => (await a.http().post('/webhooks').set(asUser(owner)).send(body).expect(201)).body;
  const remove = (id: string) => a.http().delete(`/webhooks/${id}`).set(asUser(owner)).expect(204);
  const deliveries = async (id: string) => (await a.http().get(`/webhooks/${id}/deliveries`).set(asUser(owner)).expect(200)).body.data;

  it('creates an endpoint with a whsec_ secret shown once, lists and reads it without the secret', async () => {
    const hook = await create({ url: receiver.url(), events: ['deployment.created'], description: 'CRM' });
    expect(hook).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: receiver.url(),
      events: ['deployment.created'],
      description: 'CRM',
      enabled: true,
      disabledReason: null,
      includePersonalData: false,
      format: 'standard',
      failingSince: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const got = (await a.http().get(`/webhooks/${hook.id}`).set(asUser(owner)).expect(200)).body;
    expect(got).not.toHaveProperty('secret');
    const list = (await a.http().get('/webhooks').set(asUser(owner)).expect(200)).body;
    expect(list.data.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(JSON.stringify(list)).not.toContain(hook.secret);
    const raw: { secret_ciphertext: Buffer }[] = await a.dataSource.query('SELECT secret_ciphertext FROM webhooks WHERE id = $1', [hook.id]);
    expect(raw[0].secret_ciphertext.toString('latin1')).not.toContain(hook.secret.slice(6));
    await remove(hook.id);
  });

  it('sends every event type signed per Standard Webhooks, once with two instances, personal data only when asked', async () => {
    const all = await create({ url: receiver.url('/all'), events: ['*'] });
    const personal = await create({ url: receiver.url('/personal'), events: ['lead.captured', 'form.submitted'], includePersonalData: true });
    const onlyBuilds = await create({ url: receiver.url('/builds'), events: ['build.failed'] });
    const events = sampleEvents(owner.workspaceId);
    await emit(a, events);

    const reports = await sendFromBoth();
    expect(reports.reduce((n, r) => n + r.delivered, 0)).toBe(events.length + 2 + 1);
    await sendFromBoth();
    expect(receiver.calls).toHaveLength(events.length + 3);

    const verify = (secret: string, path: string) =>
      receiver.calls
        .filter((c) => c.path === path)
        .map((c) => {
          expect(c.headers['content-type']).toBe('application/json');
          expect(c.headers['webhook-signature']).toMatch(/^v1,/);
          return new StandardWebhook(secret).verify(c.raw, signatureHeaders(c.headers)) as {
            type: string;
            workspaceId: string;
            timestamp: string;
            data: Record<string, unknown>;
          };
        });
    const received = verify(all.secret, '/all');
    expect(received.map((e) => e.type).sort()).toEqual(events.map((e) => e.type).sort());
    for (const body of received) {
      const sent = events.find((e) => e.type === body.type)!;
      expect(body).toEqual({ type: sent.type, timestamp: sent.timestamp.toISOString(), workspaceId: owner.workspaceId, data: sent.data });
    }
    expect(JSON.stringify(received)).not.toContain('visitor@example.test');

    const withPersonal = verify(personal.secret, '/personal');
    expect(withPersonal.find((e) => e.type === 'lead.captured')!.data.email).toBe('visitor@example.test');
    expect(withPersonal.find((e) => e.type === 'form.submitted')!.data.fields).toEqual({ name: 'Ann', message: 'Hello' });
    expect(verify(onlyBuilds.secret, '/builds').map((e) => e.type)).toEqual(['build.failed']);

    // Another endpoint's secret does not verify these.
    const call = receiver.calls.find((c) => c.path === '/all')!;
    expect(() => new StandardWebhook(personal.secret).verify(call.raw, signatureHeaders(call.headers))).toThrow();

    const [record] = (await deliveries(onlyBuilds.id)) as Record<string, unknown>[];
    expect(record).toMatchObject({ eventType: 'build.failed', status: 'succeeded', attempts: 1, responseStatus: 204, nextAttemptAt: null });
    expect((record.request as { body: string }).body).toBe(receiver.calls.find((c) => c.path === '/builds')!.raw);

    // Personal data is sealed at rest in the delivery records too.
    const rows: { body_ciphertext: Buffer }[] = await a.dataSource.query('SELECT body_ciphertext FROM webhook_deliveries WHERE webhook_id = $1', [personal.id]);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.body_ciphertext.toString('latin1')).not.toContain('visitor@example.test');
    for (const id of [all.id, personal.id, onlyBuilds.id]) await remove(id);
  });

  it('queues nothing for a change that rolled back', async () => {
    const hook = await create({ url: receiver.url(), events: ['*'] });
    await expect(
      a.dataSource.transaction(async (m) => {
        await a.app.get(EventBus).emit(m, sampleEvents(owner.workspaceId)[0]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await sendFromBoth();
    expect(receiver.calls).toHaveLength(0);
    expect(await deliveries(hook.id)).toHaveLength(0);
    await remove(hook.id);
  });

  it('skips an endpoint deleted or turned off between an emitter’s plan and its write; the others are queued and the write commits', async () => {
    const kept = await create({ url: receiver.url('/kept'), events: ['*'] });
    const deleted = await create({ url: receiver.url('/deleted'), events: ['*'] });
    const disabled = await create({ url: receiver.url('/disabled'), events: ['*'] });
    // As a form post does: who gets the event is read before the transaction that writes it.
    const planned = await a.app.get(EventBus).plan(a.dataSource.manager, sampleEvents(owner.workspaceId)[0]);
    await remove(deleted.id);
    await a.http().patch(`/webhooks/${disabled.id}`).set(asUser(owner)).send({ enabled: false }).expect(200);
    await a.dataSource.transaction((m) => planned.write(m));
    await sendFromBoth();
    expect(receiver.calls.map((c) => c.path)).toEqual(['/kept']);
    expect(await deliveries(disabled.id)).toHaveLength(0);
    for (const id of [kept.id, disabled.id]) await remove(id);
  });

  it('records a 2xx answer whose body holds NUL bytes (binary, compressed) once, as delivered, with NUL shown as U+FFFD', async () => {
    const hook = await create({ url: receiver.url(), events: ['*'] });
    receiver.answer({ status: 200, body: 'ok\u0000\u0000done' });
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await a.app.get(OutboxService).runOnce();
    await a.app.get(OutboxService).runOnce();
    const [d] = await deliveries(hook.id);
    expect(d).toMatchObject({ status: 'succeeded', responseStatus: 200, responseBody: 'ok\uFFFD\uFFFDdone' });
    expect(receiver.calls).toHaveLength(1);
    await remove(hook.id);
  });

  it('retries after a 500 on the Standard Webhooks schedule (5 s, 5 min, 30 min…), with growing delays on a fake clock', async () => {
    const hook = await create({ url: receiver.url(), events: ['*'] });
    receiver.answer({ status: 500, body: 'x'.repeat(10_000) }, { status: 500 }, { status: 503 });
    let now = Date.now();
    jest.spyOn(a.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);

    const waits: number[] = [];
    for (const expected of [5_000, 300_000, 1_800_000]) {
      const sentAt = now;
      await a.app.get(OutboxService).runOnce();
      const [d] = await deliveries(hook.id);
      expect(d).toMatchObject({ status: 'pending', error: null });
      // The first 4 KB of the answer are kept.
      if (expected === 5_000) expect(d.responseBody).toBe('x'.repeat(4096));
      expect(d.responseStatus).toBeGreaterThanOrEqual(500);
      const wait = Date.parse(d.nextAttemptAt) - sentAt;
      expect(wait).toBeGreaterThanOrEqual(expected);
      expect(wait).toBeLessThanOrEqual(expected * 1.1 + 1);
      waits.push(wait);
      // Not before its time…
      now += expected - 1000;
      await a.app.get(OutboxService).runOnce();
      expect((await deliveries(hook.id))[0].attempts).toBe(d.attempts);
      // …and at its time.
      now = Date.parse(d.nextAttemptAt) + 1;
    }
    expect(waits[1]).toBeGreaterThan(waits[0]);
    expect(waits[2]).toBeGreaterThan(waits[1]);
    expect(receiver.calls).toHaveLength(3);

    await a.app.get(OutboxService).runOnce();
    const [done] = await deliveries(hook.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 4, responseStatus: 204, nextAttemptAt: null });
    expect(new Set(receiver.calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([done.id]));
    await remove(hook.id);
  });

  it('redelivers a delivery under the same webhook-id, freshly signed', async () => {
    const hook = await create({ url: receiver.url(), events: ['*'] });
    const test = (await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202)).body;
    expect(test).toMatchObject({ id: expect.stringMatching(/^msg_/), eventType: 'webhook.test', status: 'pending', attempts: 0 });
    await sendFromBoth();
    const redelivered = (await b.http().post(`/webhooks/${hook.id}/deliveries/${test.id}/redeliver`).set(asUser(owner)).expect(202)).body;
    expect(redelivered).toMatchObject({ id: test.id, status: 'pending' });
    await sendFromBoth();
    expect(receiver.calls).toHaveLength(2);
    // Both sends spent the workspace's turns (OutboxKindOptions.fairShare), not everyone's.
    const shares: { share_key: string | null }[] = await a.dataSource.query(
      `SELECT share_key FROM outbox_messages WHERE kind = 'webhook' AND payload->>'deliveryId' = $1`,
      [test.id],
    );
    expect(shares).toEqual([{ share_key: owner.workspaceId }, { share_key: owner.workspaceId }]);
    for (const call of receiver.calls) {
      expect(call.headers['webhook-id']).toBe(test.id);
      expect(new StandardWebhook(hook.secret).verify(call.raw, signatureHeaders(call.headers))).toMatchObject({
        type: 'webhook.test',
        data: { webhookId: hook.id },
      });
    }
    expect(await deliveries(hook.id)).toEqual([expect.objectContaining({ id: test.id, status: 'succeeded', attempts: 2 })]);
    await a.http().post(`/webhooks/${hook.id}/deliveries/msg_doesnotexist000000000000/redeliver`).set(asUser(owner)).expect(404);
    await remove(hook.id);
  });

  it('a redelivery of a delivery waiting for its retry replaces that retry: the receiver does not get it twice', async () => {
    const hook = await create({ url: receiver.url(), events: ['*'] });
    receiver.answer({ status: 500 });
    let now = Date.now();
    jest.spyOn(a.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    const test = (await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202)).body;
    await a.app.get(OutboxService).runOnce();
    const [failed] = await deliveries(hook.id);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500 });

    await a.http().post(`/webhooks/${hook.id}/deliveries/${test.id}/redeliver`).set(asUser(owner)).expect(202);
    await a.app.get(OutboxService).runOnce();
    expect(receiver.calls).toHaveLength(2);
    expect(await deliveries(hook.id)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 2, responseStatus: 204 })]);

    // The retry the first failure scheduled comes due: it was replaced by the redelivery.
    now = Date.parse(failed.nextAttemptAt) + 1;
    await sendFromBoth();
    now += 3_600_000;
    await sendFromBoth();
    expect(receiver.calls).toHaveLength(2);
    expect(await deliveries(hook.id)).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 2, responseStatus: 204 })]);
    await remove(hook.id);
  });

  it('signs with the new secret after a rotation', async () => {
    const hook = await create({ url: receiver.url(), events: ['*'] });
    const { secret } = (await a.http().post(`/webhooks/${hook.id}/rotate-secret`).set(asUser(owner)).expect(200)).body;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await sendFromBoth();
    const [call] = receiver.calls;
    expect(() => new StandardWebhook(secret).verify(call.raw, signatureHeaders(call.headers))).not.toThrow();
    expect(() => new StandardWebhook(hook.secret).verify(call.raw, signatureHeaders(call.headers))).toThrow();
    await remove(hook.id);
  });

  it('turns an endpoint off when it answers 410, retries nothing, and mails the owners', async () => {
    const hook = await create({ url: receiver.url('/gone'), events: ['*'] });
    receiver.answer({ status: 410 });
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await sendFromBoth();
    const got = (await a.http().get(`/webhooks/${hook.id}`).set(asUser(owner)).expect(200)).body;
    expect(got).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410') });
    expect((await deliveries(hook.id))[0]).toMatchObject({ status: 'failed', responseStatus: 410, nextAttemptAt: null });
    // Read before the clock moves on a day: a round then purges the mail if a timer has delivered it already.
    const mails: unknown[] = await a.dataSource.query(
      `SELECT 1 FROM outbox_messages WHERE kind = 'mail' AND payload->>'template' = 'webhook_disabled' AND payload->>'to' = $1 AND payload->'data'->>'url' = $2`,
      [owner.email, receiver.url('/gone')],
    );
    expect(mails).toHaveLength(1);
    jest.spyOn(a.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 86_400_000));
    await a.app.get(OutboxService).runOnce();
    expect(receiver.calls.filter((c) => c.path === '/gone')).toHaveLength(1);
    // Events are not queued for a turned-off endpoint; turning it on again starts afresh.
    await emit(a, sampleEvents(owner.workspaceId).slice(0, 1));
    expect(await deliveries(hook.id)).toHaveLength(1);
    const on = (await a.http().patch(`/webhooks/${hook.id}`).set(asUser(owner)).send({ enabled: true }).expect(200)).body;
    expect(on).toMatchObject({ enabled: true, disabledReason: null });
    await remove(hook.id);
  });

  it('turns off an endpoint that has failed for 5 days straight', async () => {
    const hook = await create({ url: receiver.url('/down'), events: ['*'] });
    let now = Date.now();
    jest.spyOn(a.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    receiver.answer({ status: 500 });
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await a.app.get(OutboxService).runOnce();
    expect((await a.http().get(`/webhooks/${hook.id}`).set(asUser(owner)).expect(200)).body).toMatchObject({
      enabled: true,
      failingSince: new Date(now).toISOString(),
    });
    now += 5 * 86_400_000 + 60_000;
    receiver.answer({ status: 500 }, { status: 500 });
    await a.app.get(OutboxService).runOnce();
    const got = (await a.http().get(`/webhooks/${hook.id}`).set(asUser(owner)).expect(200)).body;
    expect(got).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('5 days') });
    const mails: unknown[] = await a.dataSource.query(
      `SELECT 1 FROM outbox_messages WHERE kind = 'mail' AND payload->>'template' = 'webhook_disabled' AND payload->'data'->>'url' = $1`,
      [receiver.url('/down')],
    );
    expect(mails).toHaveLength(1);
    await remove(hook.id);
  });

  it('sends to slow receivers side by side, and a slow receiver does not hold up the mail', async () => {
    const hooks = [await create({ url: receiver.url('/slow1'), events: ['*'] }), await create({ url: receiver.url('/slow2'), events: ['*'] })];
    const release = receiver.holdAnswers();
    try {
      await emit(a, sampleEvents(owner.workspaceId).slice(0, 1));
      // A mail queued after the webhook deliveries, so it is last in line.
      await a.dataSource.transaction((m) =>
        a.app.get(MailService).queue(m, owner.email, { template: 'password_reset', data: { name: 'Ann', link: 'https://api.example.test/x' } }, new Date()),
      );
      const run = a.app.get(OutboxService).runOnce();
      // Both receivers are called while neither has answered…
      await eventually(async () => expect(receiver.calls.map((c) => c.path).sort()).toEqual(['/slow1', '/slow2']));
      // …and the mail went out meanwhile.
      await eventually(async () => {
        const sent: unknown[] = await a.dataSource.query(
          `SELECT 1 FROM outbox_messages WHERE kind = 'mail' AND payload->>'template' = 'password_reset' AND payload->>'to' = $1 AND delivered_at IS NOT NULL`,
          [owner.email],
        );
        expect(sent).toHaveLength(1);
      });
      release();
      expect((await run).delivered).toBe(3);
    } finally {
      release();
    }
    for (const hook of hooks) await remove(hook.id);
  });

  it('a round starts no new delivery past its time budget: slow receivers cannot hold the other kinds’ next round for minutes', async () => {
    const hooks = [];
    for (let i = 0; i < 10; i++) hooks.push(await create({ url: receiver.url(`/budget${i}`), events: ['*'] }));
    const release = receiver.holdAnswers();
    try {
      await emit(a, sampleEvents(owner.workspaceId).slice(0, 1));
      const run = a.app.get(OutboxService).runOnce();
      // Eight at once (the kind's concurrency); the other two wait for a free slot…
      await eventually(async () => expect(receiver.calls).toHaveLength(8));
      // …which frees only after the round's budget: they are left for the next round.
      await new Promise((r) => setTimeout(r, ROUND_BUDGET_MS + 500));
      release();
      expect((await run).delivered).toBe(8);
      expect(receiver.calls).toHaveLength(8);
      expect((await a.app.get(OutboxService).runOnce()).delivered).toBe(2);
      expect(receiver.calls).toHaveLength(10);
    } finally {
      release();
    }
    for (const hook of hooks) await remove(hook.id);
  }, 60_000);

  it('forgets finished deliveries after 30 days, keeps pending ones', async () => {
    const hook = await create({ url: receiver.url('/old'), events: ['*'] });
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await sendFromBoth();
    receiver.answer({ status: 500 });
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await a.app.get(OutboxService).runOnce();
    expect((await deliveries(hook.id)).map((d: { status: string }) => d.status).sort()).toEqual(['pending', 'succeeded']);
    jest.spyOn(a.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 29 * 86_400_000));
    await a.app.get(WebhookDeliveriesPurge).runOnce();
    expect(await deliveries(hook.id)).toHaveLength(2);
    jest.spyOn(a.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 31 * 86_400_000));
    expect((await a.app.get(WebhookDeliveriesPurge).runOnce()).deliveriesPurged).toBeGreaterThanOrEqual(1);
    expect((await deliveries(hook.id)).map((d: { status: string }) => d.status)).toEqual(['pending']);
    await remove(hook.id);
  });

  it('does not follow a redirect, even to loopback', async () => {
    const target = await startReceiver();
    try {
      const hook = await create({ url: receiver.url(), events: ['*'] });
      receiver.answer({ status: 302, headers: { location: target.url('/internal') } });
      await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
      await sendFromBoth();
      expect(receiver.calls).toHaveLength(1);
      expect(target.calls).toHaveLength(0);
      expect((await deliveries(hook.id))[0]).toMatchObject({ status: 'pending', responseStatus: 302, attempts: 1 });
      await remove(hook.id);
    } finally {
      await target.close();
    }
  });

  it('uses Slack’s message shape for a Slack URL, or when asked', async () => {
    const slack = await create({ url: 'https://hooks.slack.com/services/T000/B000/XXXX', events: ['*'] });
    expect(slack.format).toBe('slack');
    const forced = await create({ url: receiver.url('/chat'), events: ['deployment.created'], format: 'slack' });
    await remove(slack.id);
    await emit(a, sampleEvents(owner.workspaceId).slice(0, 1));
    await sendFromBoth();
    const call = receiver.calls.find((c) => c.path === '/chat')!;
    const body = new StandardWebhook(forced.secret).verify(call.raw, signatureHeaders(call.headers)) as { text: string };
    expect(body.text).toBe('New deployment v1 in *sample* (live) <https://x.example.test/|open>');
    await remove(forced.id);
  });

  it('lets owners and admins in, not viewers; another workspace’s endpoint is a 404; bad input is a 400 naming the field', async () => {
    const admin = await registerUser(a);
    const viewer = await registerUser(a);
    await addMember(a, owner, admin, 'admin');
    await addMember(a, owner, viewer, 'viewer');
    const hook = (
      await a
        .http()
        .post('/webhooks')
        .set(asUser(admin, owner.workspaceId))
        .send({ url: receiver.url(), events: ['*'] })
        .expect(201)
    ).body;
    await a.http().get('/webhooks').set(asUser(viewer, owner.workspaceId)).expect(403);
    await a.http().get(`/webhooks/${hook.id}`).set(asUser(admin)).expect(404);
    await a.http().delete(`/webhooks/${hook.id}`).set(asUser(admin)).expect(404);

    const bad = async (body: Record<string, unknown>, pattern: RegExp) => {
      const res = await a.http().post('/webhooks').set(asUser(owner)).send(body).expect(400);
      expect(res.body.message).toMatch(pattern);
    };
    await bad({ url: receiver.url(), events: [] }, /events: must be a non-empty list/);
    await bad({ url: receiver.url(), events: ['webhook.test'] }, /events: must be a non-empty list of/);
    await bad({ url: receiver.url(), events: ['deploy.created'] }, /events: must be a non-empty list of/);
    await bad({ url: 'not a url', events: ['*'] }, /absolute URL/);
    await bad({ url: 'ftp://example.com/x', events: ['*'] }, /https or http/);
    await a.http().patch(`/webhooks/${hook.id}`).set(asUser(owner)).send({ url: 'nope' }).expect(400);
    // A PATCH field sent as null (only the description may be cleared) is a 400 naming it, and changes nothing.
    for (const field of ['url', 'events', 'enabled', 'includePersonalData', 'format']) {
      const res = await a
        .http()
        .patch(`/webhooks/${hook.id}`)
        .set(asUser(owner))
        .send({ [field]: null })
        .expect(400);
      expect(res.body.message).toContain(field);
    }
    expect((await a.http().get(`/webhooks/${hook.id}`).set(asUser(owner)).expect(200)).body).toMatchObject({
      url: receiver.url(),
      events: ['*'],
      enabled: true,
    });
    await a.http().patch(`/webhooks/${hook.id}`).set(asUser(owner)).send({ description: null }).expect(200);
    await remove(hook.id);
  });

  it('holds test events and redeliveries to 30 a minute per workspace (429 with Retry-After): the senders are every workspace’s', async () => {
    const admin = await registerUser(a);
    const hook = (
      await a
        .http()
        .post('/webhooks')
        .set(asUser(admin))
        .send({ url: 'http://127.0.0.1:9/closed', events: ['deployment.created'] })
        .expect(201)
    ).body;
    const test = () => a.http().post(`/webhooks/${hook.id}/test`).set(asUser(admin));
    const first = (await test().expect(202)).body;
    for (let i = 1; i < MANUAL_SENDS_PER_MINUTE; i++) await test().expect(202);
    const refused = await test().expect(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await a.http().post(`/webhooks/${hook.id}/deliveries/${first.id}/redeliver`).set(asUser(admin)).expect(429);
    // Another workspace is not held back by this one.
    await a.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(404);
    const own = await create({ url: receiver.url('/own'), events: ['deployment.created'] });
    await a.http().post(`/webhooks/${own.id}/test`).set(asUser(owner)).expect(202);
    await remove(own.id);
    await a.http().delete(`/webhooks/${hook.id}`).set(asUser(admin)).expect(204);
  });
});

describe('Outgoing webhooks: no SSRF (e2e)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dns: TestDnsServer;
  let t: TestApp;
  let owner: UserSession;

  beforeAll(async () => {
    receiver = await startReceiver();
    dns = await startDnsServer();
    t = await startTestApp({ env: { DNS_SERVERS: dns.server, JWT_SECRET: 'j'.repeat(40) } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await receiver?.close();
  });

  const refused = async (url: string, pattern: RegExp) => {
    const res = await t
      .http()
      .post('/webhooks')
      .set(asUser(owner))
      .send({ url, events: ['*'] })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'webhook_url_refused', message: expect.stringMatching(pattern) });
  };

  it('refuses loopback, 10/8, the metadata address, a name resolving to loopback, and http', async () => {
    await refused(`https://127.0.0.1:${receiver.port}/hook`, /127\.0\.0\.1 is a loopback address/);
    await refused('https://[::1]/hook', /loopback/);
    await refused('https://10.0.0.8/hook', /private address/);
    await refused('https://169.254.169.254/latest/meta-data/', /link-local/);
    dns.setA('loopback.hooks.test', '127.0.0.1');
    await refused(`https://loopback.hooks.test:${receiver.port}/hook`, /loopback\.hooks\.test resolves to a loopback address/);
    dns.setA('lan.hooks.test', '192.168.1.20');
    await refused('https://lan.hooks.test/hook', /private address/);
    await refused('https://nowhere.hooks.test/hook', /does not resolve/);
    await refused('http://public.hooks.test/hook', /must use https/);
    expect(receiver.calls).toHaveLength(0);
  });

  it('checks again at every delivery, on the address connected to (a name that turns to loopback)', async () => {
    dns.setA('rebind.hooks.test', '93.184.216.34');
    const hook = (
      await t
        .http()
        .post('/webhooks')
        .set(asUser(owner))
        .send({ url: `https://rebind.hooks.test:${receiver.port}/hook`, events: ['*'] })
        .expect(201)
    ).body;
    dns.setA('rebind.hooks.test', '127.0.0.1');
    await t.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    await t.app.get(OutboxService).runOnce();
    const [d] = (await t.http().get(`/webhooks/${hook.id}/deliveries`).set(asUser(owner)).expect(200)).body.data;
    expect(d).toMatchObject({
      status: 'pending',
      responseStatus: null,
      error: expect.stringMatching(/rebind\.hooks\.test resolves to a loopback address/),
    });
    expect(receiver.calls).toHaveLength(0);
  });
});
