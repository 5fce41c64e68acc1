import { BoundedConcurrency, QueueFullError } from './bounded-concurrency';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((r) => setImmediate(r));

describe('BoundedConcurrency', () => {
  it('runs at most `concurrency` tasks, the rest in order, and refuses past the queue', async () => {
    const limiter = new BoundedConcurrency(2, 2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((g, i) => limiter.run(async () => (started.push(i), await g.promise, i)));
    await tick();
    expect(started).toEqual([0, 1]);
    expect([limiter.running, limiter.queued]).toEqual([2, 2]);
    await expect(limiter.run(async () => 'late')).rejects.toBeInstanceOf(QueueFullError);
    gates[1].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((g) => g.resolve());
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([limiter.running, limiter.queued]).toEqual([0, 0]);
  });

  it('frees the slot when a task fails', async () => {
    const limiter = new BoundedConcurrency(1, 0);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });
});
