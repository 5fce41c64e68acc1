/**
 * Work that takes turns per key: a call runs once every call queued before it with the same
 * key has ended (fulfilled or not), while calls with other keys run at once. In this process
 * only. The periodic jobs of one queue, a build's forge calls and a pull request's comment
 * edits go through it.
 */
export class KeyedTurns {
  /** The last call queued for each key; gone once it has ended and nothing queued after it. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const mine = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return mine;
  }

  /** Settles once every call queued so far, and any queued while waiting, has ended. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.allSettled([...this.tails.values()]);
  }
}
