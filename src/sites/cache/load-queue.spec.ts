import { LoadQueue } from './load-queue';

/** A task that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('LoadQueue', () => {
  it('runs at most `limit` tasks at once and starts the next as one finishes', async () => {
    const queue = new LoadQueue(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const results = gates.map((g, i) =>
      queue.run(async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await flush();
    expect(started).toEqual([0, 1]);
    expect(queue.active).toBe(2);
    expect(queue.waiting).toBe(2);
    gates[1].open();
    await flush();
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((g) => g.open());
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3]);
    expect(queue.active).toBe(0);
  });

  it('lets urgent tasks ahead of waiting ones, in arrival order within each kind', async () => {
    const queue = new LoadQueue(1);
    const first = gate();
    const order: string[] = [];
    const task = (name: string) => () => {
      order.push(name);
      return name === 'first' ? first.opened : Promise.resolve();
    };
    const all = [queue.run(task('first')), queue.run(task('cold1')), queue.run(task('cold2')), queue.run(task('warm1'), true), queue.run(task('warm2'), true)];
    first.open();
    await Promise.all(all);
    expect(order).toEqual(['first', 'warm1', 'warm2', 'cold1', 'cold2']);
  });

  it('passes a failure to its caller and goes on with the queue (thrown or rejected)', async () => {
    const queue = new LoadQueue(1);
    const failing = queue.run(() => {
      throw new Error('boom');
    });
    const rejecting = queue.run(() => Promise.reject(new Error('down')));
    const after = queue.run(() => Promise.resolve('ok'));
    await expect(failing).rejects.toThrow('boom');
    await expect(rejecting).rejects.toThrow('down');
    await expect(after).resolves.toBe('ok');
  });

  it('keeps order across a long queue (its compaction)', async () => {
    const queue = new LoadQueue(1);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 5000 }, (_, i) => queue.run(async () => void order.push(i))));
    expect(order).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});
