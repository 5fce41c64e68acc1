import { Clock } from '../../src/common/time';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { DEAD_KEPT_MS, OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';

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
