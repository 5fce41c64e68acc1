import dns, { type LookupAddress } from 'node:dns';

import { boundedSystemLookup, REPOSITORY_LOOKUPS, resolverOf, systemLookupLoad } from './guarded-lookup';

type Answer = (err: NodeJS.ErrnoException | null, list: LookupAddress[]) => void;

/**
 * The system resolver's share of libuv's thread pool: getaddrinfo is held here (a name
 * whose nameserver never answers), as the pool would hold a thread for it.
 */
describe('resolverOf without DNS_SERVERS (the system resolver)', () => {
  let pending: { host: string; answer: Answer }[];

  beforeEach(() => {
    pending = [];
    jest.spyOn(dns, 'lookup').mockImplementation(((host: string, _options: unknown, answer: Answer) => {
      pending.push({ host, answer });
    }) as never);
  });
  afterEach(() => jest.restoreAllMocks());

  const answer = (host: string) => {
    const i = pending.findIndex((p) => p.host === host);
    pending.splice(i, 1)[0].answer(null, [{ address: '203.0.113.1', family: 4 }]);
  };

  it('runs at most two getaddrinfo at once; the others wait their turn and then run', async () => {
    const resolve = resolverOf([], 5_000);
    const results = ['a.example', 'b.example', 'c.example'].map((h) => resolve(h));
    expect(pending.map((p) => p.host)).toEqual(['a.example', 'b.example']);
    expect(systemLookupLoad()).toEqual({ running: 2, waiting: 1 });
    answer('a.example');
    await expect(results[0]).resolves.toEqual([{ address: '203.0.113.1', family: 4 }]);
    expect(pending.map((p) => p.host)).toEqual(['b.example', 'c.example']);
    answer('b.example');
    answer('c.example');
    await Promise.all(results);
    expect(systemLookupLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it('gives a lookup up after the timeout, waiting or running; a hung one keeps its thread counted until it returns', async () => {
    const resolve = resolverOf([], 50);
    const outcomes = await Promise.allSettled([resolve('hung-1.example'), resolve('hung-2.example'), resolve('queued.example')]);
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as NodeJS.ErrnoException).code)).toEqual(['ETIMEOUT', 'ETIMEOUT', 'ETIMEOUT']);
    // The one given up on while waiting never reached getaddrinfo.
    expect(pending.map((p) => p.host)).toEqual(['hung-1.example', 'hung-2.example']);
    // Still two threads taken: the next lookup waits rather than taking a third.
    const next = resolverOf([], 5_000)('next.example');
    expect(systemLookupLoad()).toEqual({ running: 2, waiting: 1 });
    answer('hung-1.example');
    expect(pending.map((p) => p.host)).toEqual(['hung-2.example', 'next.example']);
    answer('next.example');
    await expect(next).resolves.toHaveLength(1);
    answer('hung-2.example');
    expect(systemLookupLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it('keeps a thread for repository checks: outbound lookups filling their share do not hold them up', async () => {
    const resolve = resolverOf([], 5_000);
    const outbound = ['dead-1.example', 'dead-2.example', 'dead-3.example'].map((h) => resolve(h));
    expect(systemLookupLoad()).toEqual({ running: 2, waiting: 1 });
    const repository = boundedSystemLookup('git.example', 5_000, REPOSITORY_LOOKUPS);
    expect(pending.map((p) => p.host)).toEqual(['dead-1.example', 'dead-2.example', 'git.example']);
    answer('git.example');
    await expect(repository).resolves.toHaveLength(1);
    expect(systemLookupLoad(REPOSITORY_LOOKUPS)).toEqual({ running: 0, waiting: 0 });
    for (const host of ['dead-1.example', 'dead-2.example', 'dead-3.example']) answer(host);
    await Promise.all(outbound);
  });
});
