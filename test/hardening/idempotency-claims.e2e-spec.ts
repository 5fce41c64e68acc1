import { IdempotencyService } from '../../src/common/idempotency/idempotency.service';
import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { registerUser } from '../helpers/identity';

/**
 * A request whose Idempotency-Key a retry took over (its claim looked dead) may still
 * finish or fail afterwards: what it does then must touch its own claim only, never the
 * retry's (service, real PostgreSQL).
 */
describe('Idempotency-Key claims taken over by a retry (service, real PostgreSQL)', () => {
  let t: TestApp;
  let idempotency: IdempotencyService;
  let clock: Clock;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp();
    idempotency = t.app.get(IdempotencyService);
    clock = t.app.get(Clock);
    workspaceId = (await registerUser(t)).workspaceId;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  /** The first request's claim, then a retry's that takes the key over once the first has run past the in-progress timeout. */
  async function takenOver(key: string) {
    const start = new Date();
    jest.spyOn(clock, 'now').mockReturnValue(start);
    const first = await idempotency.begin(workspaceId, key, 'hash');
    if (first.kind !== 'new') throw new Error('expected a new claim');
    const later = new Date(start.getTime() + 6 * 60_000);
    jest.spyOn(clock, 'now').mockReturnValue(later);
    const retry = await idempotency.begin(workspaceId, key, 'hash');
    if (retry.kind !== 'new') throw new Error('expected the retry to take the key over');
    const claim = (createdAt: Date) => ({ workspaceId, key, createdAt, status: 201, completed: false });
    return { first: claim(first.createdAt), retry: claim(retry.createdAt) };
  }

  it('the first request failing late does not delete the retry’s claim', async () => {
    const { first } = await takenOver('late-failure');
    await idempotency.abandon(first);
    // The retry is still in progress: a third request with the key is told so, and does not run beside it.
    await expect(idempotency.begin(workspaceId, 'late-failure', 'hash')).rejects.toMatchObject({ code: 'idempotency_key_in_progress' });
  });

  it('the first request finishing late does not record its answer as the retry’s', async () => {
    const { first, retry } = await takenOver('late-success');
    await idempotency.complete(first, { from: 'first' });
    await expect(idempotency.begin(workspaceId, 'late-success', 'hash')).rejects.toMatchObject({ code: 'idempotency_key_in_progress' });
    await idempotency.complete(retry, { from: 'retry' });
    expect(await idempotency.begin(workspaceId, 'late-success', 'hash')).toEqual({ kind: 'replay', status: 201, body: { from: 'retry' } });
  });
});
