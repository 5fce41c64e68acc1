import { FreshRead, FreshReads } from './fresh-read';

/** A read whose answers the test releases by hand, recording when each one started. */
function manualRead() {
  let value = 0;
  const pending: (() => void)[] = [];
  const started: number[] = [];
  const read = () =>
    new Promise<number>((resolve) => {
      const at = value;
      started.push(at);
      pending.push(() => resolve(at));
    });
  return {
    read,
    started,
    change: () => value++,
    releaseOne: async () => {
      pending.shift()!();
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('FreshRead', () => {
  it('starts a read when none is under way', async () => {
    const m = manualRead();
    const fresh = new FreshRead(m.read);
    const got = fresh.get();
    await m.releaseOne();
    await expect(got).resolves.toBe(0);
  });

  it('never answers with a read that started before the call', async () => {
    const m = manualRead();
    const fresh = new FreshRead(m.read);
    const early = fresh.get(); // read #1 starts, sees 0
    m.change(); // committed after read #1 was sent
    const late = fresh.get(); // must not share read #1
    await m.releaseOne();
    await expect(early).resolves.toBe(0);
    await m.releaseOne();
    await expect(late).resolves.toBe(1);
  });

  it('lets every caller waiting behind a read share the next one', async () => {
    const m = manualRead();
    const fresh = new FreshRead(m.read);
    const first = fresh.get();
    const waiting = [fresh.get(), fresh.get(), fresh.get()];
    await m.releaseOne();
    await first;
    await m.releaseOne();
    await Promise.all(waiting);
    expect(m.started).toHaveLength(2);
  });

  it('passes a failed read on to its callers and reads again afterwards', async () => {
    let fail = true;
    const fresh = new FreshRead(async () => {
      if (fail) throw new Error('down');
      return 7;
    });
    await expect(fresh.get()).rejects.toThrow('down');
    fail = false;
    await expect(fresh.get()).resolves.toBe(7);
  });
});

describe('FreshReads', () => {
  it('shares one read among identical concurrent calls, keeps keys apart, and forgets settled keys', async () => {
    const m = manualRead();
    const other = manualRead();
    const reads = new FreshReads<number>();
    const first = reads.get('a', m.read);
    const waiting = [reads.get('a', m.read), reads.get('a', m.read)];
    const elsewhere = reads.get('b', other.read);
    expect(reads.size).toBe(2);
    m.change(); // committed after the first read was sent: the waiting callers must see it
    await m.releaseOne();
    await expect(first).resolves.toBe(0);
    await m.releaseOne();
    await expect(Promise.all(waiting)).resolves.toEqual([1, 1]);
    expect(m.started).toHaveLength(2);
    await other.releaseOne();
    await expect(elsewhere).resolves.toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(reads.size).toBe(0);
  });

  it('gives a failed read to the callers that shared it, and reads again for the next', async () => {
    let fail = true;
    const reads = new FreshReads<number>();
    const read = async () => {
      if (fail) throw new Error('down');
      return 7;
    };
    await expect(Promise.all([reads.get('k', read), reads.get('k', read)])).rejects.toThrow('down');
    fail = false;
    await expect(reads.get('k', read)).resolves.toBe(7);
    await new Promise((r) => setImmediate(r));
    expect(reads.size).toBe(0);
  });
});
