/**
 * Runs at most `limit` loads at once, the rest in arrival order; `urgent` ones (a site
 * that was served before and lost its cached state) go ahead of loads of hosts never
 * seen. A burst of cold or invented hosts then holds `limit` database connections and
 * queues the rest, instead of taking the whole pool from the API and from the sites
 * that were warm a moment ago.
 */
export class LoadQueue {
  private running = 0;
  private readonly urgent: (() => void)[] = [];
  private readonly normal: (() => void)[] = [];
  private urgentHead = 0;
  private normalHead = 0;

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`load limit must be at least 1, not ${limit}`);
  }

  /** Loads started and not finished. */
  get active(): number {
    return this.running;
  }

  /** Loads waiting for a slot. */
  get waiting(): number {
    return this.urgent.length - this.urgentHead + (this.normal.length - this.normalHead);
  }

  run<T>(task: () => Promise<T>, urgent = false): Promise<T> {
    if (this.running < this.limit) return this.start(task);
    return new Promise<T>((resolve, reject) => {
      (urgent ? this.urgent : this.normal).push(() => this.start(task).then(resolve, reject));
    });
  }

  private start<T>(task: () => Promise<T>): Promise<T> {
    this.running++;
    let result: Promise<T>;
    try {
      result = task();
    } catch (err) {
      result = Promise.reject(err);
    }
    return result.finally(() => {
      this.running--;
      this.next();
    });
  }

  private next(): void {
    const queue = this.urgentHead < this.urgent.length ? 'urgent' : this.normalHead < this.normal.length ? 'normal' : undefined;
    if (!queue) return;
    const list = this[queue];
    const head = queue === 'urgent' ? this.urgentHead++ : this.normalHead++;
    const start = list[head];
    // Compact now and then: shift() on a long queue is linear.
    if (head + 1 >= 1024 && head + 1 >= list.length / 2) {
      list.splice(0, head + 1);
      if (queue === 'urgent') this.urgentHead = 0;
      else this.normalHead = 0;
    }
    start();
  }
}
