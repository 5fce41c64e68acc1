/** Thrown instead of queueing when the queue is full. */
export class QueueFullError extends Error {
  constructor() {
    super('queue full');
    this.name = 'QueueFullError';
  }
}

/**
 * Runs at most `concurrency` tasks at once; up to `maxQueue` more wait in order, and
 * any beyond that are refused at once (QueueFullError) rather than piling up.
 */
export class BoundedConcurrency {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private concurrency: number,
    private maxQueue: number,
  ) {}

  configure(concurrency: number, maxQueue: number): void {
    this.concurrency = concurrency;
    this.maxQueue = maxQueue;
    this.startWaiting();
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.maxQueue) throw new QueueFullError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await task();
    } finally {
      this.active--;
      this.startWaiting();
    }
  }

  private startWaiting(): void {
    while (this.active < this.concurrency && this.waiting.length > 0) {
      this.active++;
      this.waiting.shift()!();
    }
  }
}
