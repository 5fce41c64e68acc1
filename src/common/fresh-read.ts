/**
 * Coalesces reads of a value that must be at least as new as the moment it was asked
 * for: a caller gets the result of a read that *started after* its call. Callers
 * arriving while a read is under way share the next one, so under load there is one
 * read in flight at a time, however many requests wait on it.
 */
export class FreshRead<T> {
  private running?: Promise<T>;
  private next?: Promise<T>;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    // A read under way may have been sent before this call: wait for the one after it.
    if (this.running) return (this.next ??= this.running.then(noop, noop).then(() => this.startQueued()));
    return this.start();
  }

  /** True while nothing is under way or queued (a keyed set of reads drops idle ones). */
  get idle(): boolean {
    return !this.running && !this.next;
  }

  private startQueued(): Promise<T> {
    this.next = undefined;
    return this.start();
  }

  private start(): Promise<T> {
    const started: Promise<T> = this.read().finally(() => {
      if (this.running === started) this.running = undefined;
    });
    this.running = started;
    return started;
  }
}

/**
 * FreshRead per key: identical reads asked for at the same time share one query, and
 * each caller still gets an answer read after it asked (never a cached one), so a
 * change committed before a request was sent always shows in its answer. Keys are
 * forgotten as soon as their reads settle: nothing is kept between bursts.
 *
 * What is shared is the same object for every caller of a burst: callers must treat
 * it as read-only (map it to a view; never change and save it).
 */
export class FreshReads<T> {
  private readonly reads = new Map<string, FreshRead<T>>();

  get(key: string, read: () => Promise<T>): Promise<T> {
    let fresh = this.reads.get(key);
    if (!fresh) {
      fresh = new FreshRead(read);
      this.reads.set(key, fresh);
    }
    const answer = fresh.get();
    const reads = fresh;
    void answer
      .finally(() => {
        if (reads.idle && this.reads.get(key) === reads) this.reads.delete(key);
      })
      .catch(noop);
    return answer;
  }

  /** Keys with a read under way or queued (for tests: nothing may be left behind). */
  get size(): number {
    return this.reads.size;
  }
}

function noop(): void {}
