import { KeyedTurns } from './keyed-turns';

describe('KeyedTurns', () => {
  it('runs the calls of one key one after the other, a failure included, and other keys at once', async () => {
    const turns = new KeyedTurns();
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const first = turns.run('a', async () => {
      events.push('a1 start');
      await held;
      events.push('a1 end');
      throw new Error('a1 failed');
    });
    const second = turns.run('a', async () => {
      events.push('a2');
      return 2;
    });
    const other = turns.run('b', async () => {
      events.push('b1');
      return 'b';
    });
    await expect(other).resolves.toBe('b');
    expect(events).toEqual(['a1 start', 'b1']);
    release();
    await expect(first).rejects.toThrow('a1 failed');
    await expect(second).resolves.toBe(2);
    expect(events).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('idle waits for calls queued while it waits, and forgets keys once they are done', async () => {
    const turns = new KeyedTurns();
    let ran = 0;
    void turns.run('a', async () => {
      ran++;
      void turns.run('a', async () => void ran++);
    });
    await turns.idle();
    expect(ran).toBe(2);
    expect((turns as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });
});
