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

function noop(): void {}
