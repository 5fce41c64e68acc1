import { LoadBatches } from './load-batches';
import { LoadQueue } from './load-queue';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A batch read that finishes when the test says so, recording the keys of each call. */
function reader() {
  const calls: string[][] = [];
  const finish: (() => void)[] = [];
  const read = (keys: string[]) => {
    calls.push(keys);
    return new Promise<Map<string, string>>((resolve) =>
      finish.push(() => resolve(new Map(keys.filter((k) => !k.startsWith('none')).map((k) => [k, `v:${k}`])))),
    );
  };
  return { calls, finish, read };
}

describe('LoadBatches', () => {
  it('reads the keys asked in one turn with one call, and gives keys without a value the missing value', async () => {
    const r = reader();
    const batches = new LoadBatches(new LoadQueue(4), r.read, null, 10);
    const values = Promise.all(['a', 'b', 'none-1', 'a'].map((k) => batches.get(k)));
    await turn();
    expect(r.calls).toEqual([['a', 'b', 'none-1']]);
    r.finish[0]();
    expect(await values).toEqual(['v:a', 'v:b', null, 'v:a']);
  });

  it('gathers the keys asked while every slot is busy into the next batch, at most maxBatch to a call', async () => {
    const r = reader();
    const batches = new LoadBatches(new LoadQueue(1), r.read, null, 3);
    const first = batches.get('a');
    await turn();
    expect(r.calls).toEqual([['a']]);
    const rest = ['b', 'c', 'd', 'e'].map((k) => batches.get(k));
    await turn();
    // The one slot is still taken: nothing more is read yet.
    expect(r.calls).toHaveLength(1);
    r.finish[0]();
    expect(await first).toBe('v:a');
    await turn();
    expect(r.calls).toEqual([['a'], ['b', 'c', 'd']]);
    r.finish[1]();
    await turn();
    await turn();
    expect(r.calls).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    r.finish[2]();
    expect(await Promise.all(rest)).toEqual(['v:b', 'v:c', 'v:d', 'v:e']);
  });

  it('reads urgent keys ahead of keys waiting for the slot', async () => {
    const r = reader();
    const queue = new LoadQueue(1);
    const batches = new LoadBatches(queue, r.read, null, 10);
    void batches.get('first');
    await turn();
    void batches.get('new');
    await turn();
    void batches.get('known', true);
    await turn();
    r.finish[0]();
    await turn();
    expect(r.calls[1]).toEqual(['known']);
    r.finish[1]();
    await turn();
    expect(r.calls[2]).toEqual(['new']);
    r.finish[2]();
  });

  it('fails every key of a batch whose read fails, and reads later keys afresh', async () => {
    let fail = true;
    const calls: string[][] = [];
    const batches = new LoadBatches(
      new LoadQueue(2),
      async (keys: string[]) => {
        calls.push(keys);
        if (fail) throw new Error('database down');
        return new Map(keys.map((k) => [k, k.toUpperCase()]));
      },
      null,
      10,
    );
    const failed = ['a', 'b'].map((k) => batches.get(k));
    await expect(failed[0]).rejects.toThrow('database down');
    await expect(failed[1]).rejects.toThrow('database down');
    fail = false;
    expect(await batches.get('a')).toBe('A');
    expect(calls).toEqual([['a', 'b'], ['a']]);
  });

  it('fails only the key whose value is a rejected promise', async () => {
    const batches = new LoadBatches(
      new LoadQueue(1),
      async (keys: string[]) => new Map(keys.map((k) => [k, k === 'bad' ? Promise.reject(new Error('lost object')) : Promise.resolve(k)])),
      null,
      10,
    );
    const [good, bad] = await Promise.allSettled(['good', 'bad'].map((k) => batches.get(k)));
    expect(good).toEqual({ status: 'fulfilled', value: 'good' });
    expect(bad).toMatchObject({ status: 'rejected', reason: new Error('lost object') });
  });

  it('refuses a batch size below one', () => {
    expect(() => new LoadBatches(new LoadQueue(1), async () => new Map(), null, 0)).toThrow('batch size must be at least 1');
  });
});
