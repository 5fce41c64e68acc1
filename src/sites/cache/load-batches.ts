import type { LoadQueue } from './load-queue';

interface Waiter<V> {
  resolve: (value: V | Promise<V>) => void;
  reject: (err: unknown) => void;
}

type Lane = 'urgent' | 'normal';

/**
 * Reads keys in batches through a LoadQueue: the keys asked while a batch waits for its
 * slot (or within one turn of the event loop) are read by one call of `read`. Each
 * statement costs the app a fixed share of its CPU whatever it reads (the protocol,
 * the pool, the promises: 40 % of a cold pass's profile with one site per statement),
 * so a burst of cold hosts read ten at a time costs a fraction of ten reads. When the
 * queue is idle a key waits only for the end of the turn it was asked in.
 *
 * `urgent` keys (a host served before) go in batches of their own, ahead of new hosts,
 * as LoadQueue orders single loads.
 */
export class LoadBatches<K, V> {
  private readonly pending: Record<Lane, Map<K, Waiter<V>[]>> = { urgent: new Map(), normal: new Map() };
  /** Whether a batch of the lane is scheduled and has not taken its keys yet. */
  private readonly scheduled: Record<Lane, boolean> = { urgent: false, normal: false };

  constructor(
    private readonly queue: LoadQueue,
    /**
     * Reads a batch: a value for each key (or a promise of one: a rejected one fails that key
     * alone), or none (`missing`). Throwing fails every key of the batch.
     */
    private readonly read: (keys: K[]) => Promise<Map<K, V | Promise<V>>>,
    private readonly missing: V,
    private readonly maxBatch: number,
  ) {
    if (!(maxBatch >= 1)) throw new Error(`batch size must be at least 1, not ${maxBatch}`);
  }

  get(key: K, urgent = false): Promise<V> {
    const lane: Lane = urgent ? 'urgent' : 'normal';
    return new Promise<V>((resolve, reject) => {
      const waiters = this.pending[lane].get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending[lane].set(key, [{ resolve, reject }]);
      this.schedule(lane);
    });
  }

  private schedule(lane: Lane): void {
    if (this.scheduled[lane]) return;
    this.scheduled[lane] = true;
    // After this turn's other requests have asked their keys: they join the batch.
    setImmediate(() => {
      this.queue.run(() => this.flush(lane), lane === 'urgent').catch(() => undefined);
    });
  }

  /** Runs in the batch's queue slot: takes the keys asked so far, up to maxBatch. */
  private async flush(lane: Lane): Promise<void> {
    this.scheduled[lane] = false;
    const pending = this.pending[lane];
    const batch = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of pending) {
      if (batch.size === this.maxBatch) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) pending.delete(key);
    // Keys past the batch's size wait for the next slot.
    if (pending.size > 0) this.schedule(lane);
    if (batch.size === 0) return;
    let values: Map<K, V | Promise<V>>;
    try {
      values = await this.read([...batch.keys()]);
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      return;
    }
    for (const [key, waiters] of batch) {
      const value = values.has(key) ? (values.get(key) as V | Promise<V>) : this.missing;
      for (const w of waiters) w.resolve(value);
    }
  }
}
