import { Clock } from '../../src/common/time';
import { OutboxShareKey1765500000000 } from '../../src/database/migrations/1765500000000-OutboxShareKey';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { DEAD_KEPT_MS, OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { registerUser } from '../helpers/identity';

/**
 * A round of the outbox holds its advisory lock until every send it started has ended,
 * even when one of them fails in a way the round cannot record (the database lost while
 * marking it): otherwise the next round, here or on another instance, finds the messages
 * still in flight unmarked and sends them a second time.
 */
describe('Outbox rounds (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t?.close());

  it('ends a round only when every send has ended, so no message in flight is sent twice', async () => {
    const outbox = t.app.get(OutboxService);
    const messages = t.app.get(OutboxRepository);
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    let slowSends = 0;
    outbox.register('test.slow', async () => {
      slowSends++;
      await held;
    });
    outbox.register('test.fast', async () => {});
    await t.dataSource.transaction(async (m) => {
      await outbox.enqueue(m, 'test.slow', {}, new Date());
      await outbox.enqueue(m, 'test.fast', {}, new Date());
    });
    // The fast message is sent, and then neither its success nor its failure can be recorded.
    const lost = () => Promise.reject(new Error('connection lost'));
    const marked = jest.spyOn(messages, 'markDelivered').mockImplementationOnce(lost);
    jest.spyOn(messages, 'markFailed').mockImplementationOnce(lost);

    let ended = false;
    const round = outbox.runOnce().finally(() => (ended = true));
    round.catch(() => undefined);
    await eventually(async () => {
      if (slowSends !== 1 || marked.mock.calls.length === 0) throw new Error('both sends have not started yet');
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(ended).toBe(false);

    release();
    await expect(round).rejects.toThrow('connection lost');
    // The next round finds the slow message delivered: it is not sent again.
    await outbox.runOnce();
    expect(slowSends).toBe(1);
  });

  it('takes turns between share keys in a fair kind: a flood from one key leaves room for the others', async () => {
    const outbox = t.app.get(OutboxService);
    const sent: string[] = [];
    const register = (kind: string, fairShare: boolean) =>
      outbox.register(kind, async (payload) => void sent.push(`${kind}:${String(payload.n)}`), { fairShare });
    register('test.fair', true);
    register('test.unfair', false);
    const at = Date.now() - 60_000;
    await t.dataSource.transaction(async (m) => {
      // 60 from one workspace, then 2 from another and one without a key, each a millisecond younger than the last.
      for (let n = 0; n < 60; n++) for (const kind of ['test.fair', 'test.unfair']) await outbox.enqueue(m, kind, { n: `a${n}` }, new Date(at + n), 'ws_flood');
      for (const kind of ['test.fair', 'test.unfair']) {
        await outbox.enqueue(m, kind, { n: 'b0' }, new Date(at + 60), 'ws_quiet');
        await outbox.enqueue(m, kind, { n: 'b1' }, new Date(at + 61), 'ws_quiet');
        await outbox.enqueue(m, kind, { n: 'none' }, new Date(at + 62));
      }
    });
    await outbox.runOnce();
    const fair = sent.filter((s) => s.startsWith('test.fair:')).map((s) => s.slice('test.fair:'.length));
    const unfair = sent.filter((s) => s.startsWith('test.unfair:')).map((s) => s.slice('test.unfair:'.length));
    // A round's batch is 50: each key's oldest first (oldest key first), then each key's second, then the flood's rest.
    expect(fair.slice(0, 5)).toEqual(['a0', 'b0', 'none', 'a1', 'b1']);
    expect(fair).toHaveLength(50);
    // The kind that does not ask for turns keeps the oldest first: the quiet workspace waits for the next round.
    expect(unfair).toEqual(Array.from({ length: 50 }, (_, n) => `a${n}`));
    await outbox.runOnce();
    expect(sent.filter((s) => s.startsWith('test.fair:'))).toHaveLength(63);
  });

  it('the fair kinds’ query picks what the definition of turns says; past its share keys a round walks some and the next goes on', async () => {
    const messages = t.app.get(OutboxRepository);
    // The definition: number every due message within its key (messages without one share a key), oldest first; take by turn, then age.
    const definition = `SELECT m.id FROM (SELECT id, next_attempt_at, created_at,
        row_number() OVER (PARTITION BY share_key ORDER BY next_attempt_at, created_at, id) AS turn
        FROM outbox_messages WHERE delivered_at IS NULL AND dead_at IS NULL AND next_attempt_at <= $1 AND kind = $2) d
      JOIN outbox_messages m ON m.id = d.id ORDER BY d.turn, d.next_attempt_at, d.created_at, m.id LIMIT $3`;
    const now = new Date();
    for (let round = 0; round < 12; round++) {
      await t.dataSource.query(`DELETE FROM outbox_messages WHERE kind LIKE 'test.turns%'`);
      // Random ages and due times in whole minutes (ties within a key: a fan-out queues many at once), some not due
      // yet, a flood key, keys with one message, some without a key, some sent, another kind.
      await t.dataSource.query(
        `INSERT INTO outbox_messages (id, kind, payload, created_at, attempts, next_attempt_at, share_key, delivered_at)
         SELECT 'obx_turns_' || g, CASE WHEN random() < 0.1 THEN 'test.turns.other' ELSE 'test.turns' END, '{}',
                $3::timestamptz - floor(random() * 60) * interval '1 minute', 0, $3::timestamptz - floor(random() * 60 - 10) * interval '1 minute',
                CASE WHEN random() < 0.1 THEN NULL WHEN random() < 0.4 THEN 'ws_flood' ELSE 'ws_' || floor(random() * $2) END,
                CASE WHEN random() < 0.05 THEN $3::timestamptz END
           FROM generate_series(1, $1) g`,
        [1 + Math.floor(Math.random() * 300), 1 + Math.floor(Math.random() * 80), now],
      );
      for (const limit of [1, 7, 50]) {
        const expected = (await t.dataSource.query(definition, [now, 'test.turns', limit])).map((r: { id: string }) => r.id);
        const after = ['', 'ws_3', 'ws_flood', 'zz'][round % 4];
        const picked = (await messages.dueInTurns(now, 'test.turns', limit, after, 1000, 10_000)).messages.map((m) => m.id);
        expect({ round, limit, after, picked }).toEqual({ round, limit, after, picked: expected });
      }
    }
    // Past `maxDueKeys` keys with due messages a round takes those its walk found first from `after` on (wrapping),
    // and the next round goes on from the last one walked. Keys whose messages all wait for a retry are walked
    // past (an index seek each) and count only against `maxKeys`, which bounds a round's walk.
    await t.dataSource.query(`DELETE FROM outbox_messages WHERE kind LIKE 'test.turns%'`);
    await t.dataSource.query(
      `INSERT INTO outbox_messages (id, kind, payload, created_at, attempts, next_attempt_at, share_key)
       SELECT 'obx_turns_' || g, 'test.turns', '{}', $1::timestamptz, 0, CASE WHEN g < 6 THEN $2::timestamptz ELSE $1::timestamptz END, 'ws_' || g
         FROM generate_series(0, 9) g`,
      [new Date(now.getTime() - 1000), new Date(now.getTime() + 3_600_000)],
    );
    const walk = async (after: string, maxDueKeys: number, maxKeys: number) => {
      const { messages: due, walkedTo } = await messages.dueInTurns(now, 'test.turns', 50, after, maxDueKeys, maxKeys);
      return { keys: due.map((m) => m.shareKey), walkedTo };
    };
    expect(await walk('', 2, 100)).toEqual({ keys: ['ws_6', 'ws_7'], walkedTo: 'ws_7' });
    expect(await walk('ws_7', 2, 100)).toEqual({ keys: ['ws_8', 'ws_9'], walkedTo: 'ws_9' });
    // Past ws_9 the walk wraps: five keys waiting for a retry before the next due one.
    expect(await walk('ws_9', 2, 100)).toEqual({ keys: ['ws_6', 'ws_7'], walkedTo: 'ws_7' });
    // A round walks past at most `maxKeys` keys, due or not.
    expect(await walk('', 2, 4)).toEqual({ keys: [], walkedTo: 'ws_3' });
    expect(await walk('ws_3', 2, 4)).toEqual({ keys: ['ws_6', 'ws_7'], walkedTo: 'ws_7' });
    // Fewer keys than either bound: every one is walked, whichever comes first, back to where the walk began.
    expect(await walk('ws_7', 100, 100)).toEqual({ keys: ['ws_6', 'ws_7', 'ws_8', 'ws_9'], walkedTo: 'ws_7' });
    await t.dataSource.query(`DELETE FROM outbox_messages WHERE kind LIKE 'test.turns%'`);
  });

  it('the upgrade gives the webhook deliveries waiting at that moment their workspace’s turns', async () => {
    const owner = await registerUser(t);
    const at = new Date();
    await t.dataSource.query(
      `INSERT INTO webhooks (id, workspace_id, url, events, format, secret_key_id, secret_nonce, secret_ciphertext)
       VALUES ('wh_upgradebackfill000000000000', $1, 'https://example.com/hook', '{*}', 'standard', 'k', '\\x00', '\\x00')`,
      [owner.workspaceId],
    );
    // Two queued before the upgrade (no key yet), one of them already sent.
    for (const [n, delivered] of [
      ['1', null],
      ['2', at],
    ] as const) {
      await t.dataSource.query(
        `INSERT INTO outbox_messages (id, kind, payload, created_at, attempts, next_attempt_at, delivered_at)
         VALUES ('obx_upgradebackfill${n}', 'webhook', '{}', $1, 0, $1, $2)`,
        [at, delivered],
      );
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, event_type, body_key_id, body_nonce, body_ciphertext, status, outbox_message_id)
         VALUES ('msg_upgradebackfill${n}', 'wh_upgradebackfill000000000000', $1, 'deployment.ready', 'k', '\\x00', '\\x00', 'pending', 'obx_upgradebackfill${n}')`,
        [owner.workspaceId],
      );
    }
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const migration = new OutboxShareKey1765500000000();
      await migration.down(runner);
      await migration.up(runner);
      const rows = await runner.query(`SELECT id, share_key FROM outbox_messages WHERE id LIKE 'obx_upgradebackfill%' ORDER BY id`);
      expect(rows).toEqual([
        { id: 'obx_upgradebackfill1', share_key: owner.workspaceId },
        { id: 'obx_upgradebackfill2', share_key: null },
      ]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await t.dataSource.query(`DELETE FROM webhooks WHERE id = 'wh_upgradebackfill000000000000'`);
    await t.dataSource.query(`DELETE FROM outbox_messages WHERE id LIKE 'obx_upgradebackfill%'`);
  });

  it('drops delivered messages after a day and dead ones after 30 days, keeping the younger', async () => {
    const outbox = t.app.get(OutboxService);
    const now = Date.now();
    const day = 86_400_000;
    await t.dataSource.query(
      `INSERT INTO outbox_messages (id, kind, payload, attempts, next_attempt_at, created_at, delivered_at, dead_at) VALUES
         ('msg_delivered_old', 'test.kept', '{}', 1, $1, $1, $2, NULL),
         ('msg_delivered_new', 'test.kept', '{}', 1, $1, $1, $3, NULL),
         ('msg_dead_old', 'test.kept', '{}', 12, $1, $1, NULL, $4),
         ('msg_dead_new', 'test.kept', '{}', 12, $1, $1, NULL, $5)`,
      [
        new Date(now - 40 * day),
        new Date(now - day - 60_000),
        new Date(now - day + 60_000),
        new Date(now - DEAD_KEPT_MS - 60_000),
        new Date(now - DEAD_KEPT_MS + 60_000),
      ],
    );
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(now));
    await outbox.runOnce();
    const left = await t.dataSource.query(`SELECT id FROM outbox_messages WHERE kind = 'test.kept' ORDER BY id`);
    expect(left.map((r: { id: string }) => r.id)).toEqual(['msg_dead_new', 'msg_delivered_new']);
  });
});
