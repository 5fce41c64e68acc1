import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** What comparing a screenshot with its reference found. */
export type PngDiff =
  | { kind: 'size'; size: string; referenceSize: string }
  | { kind: 'pixels'; differing: number; share: number; /** PNG of the differences, when share > maxShare. */ diff?: Buffer };

interface WorkerReply {
  id: number;
  result?: { size?: string; referenceSize?: string; differing?: number; share?: number; diff?: Uint8Array };
  error?: string;
}

/**
 * Screenshot comparisons in a worker thread (png-diff.worker.js says why: decoding PNGs
 * inside jest's vm context is 30 times slower than in plain Node). One thread per test
 * file; `close` ends it.
 */
export class PngDiffer {
  private readonly worker = new Worker(join(__dirname, 'png-diff.worker.js'));
  private readonly pending = new Map<number, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>();
  private next = 0;
  /** Why the thread ended, once it has: later comparisons fail with it instead of waiting forever. */
  private ended?: Error;

  constructor() {
    this.worker.on('message', (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiting?.resolve(reply);
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`the PNG comparison thread exited (${code})`)));
  }

  /** `actual` (a PNG) against the PNG file `reference`; pixels count as the same below pixelmatch's `threshold`. */
  async compare(reference: string, actual: Buffer, { threshold, maxShare }: { threshold: number; maxShare: number }): Promise<PngDiff> {
    if (this.ended) throw this.ended;
    const id = this.next++;
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, job: { reference, actual, threshold, maxShare } });
    });
    if (reply.error !== undefined) throw new Error(`comparing with ${reference}: ${reply.error}`);
    const r = reply.result!;
    if (r.size !== undefined) return { kind: 'size', size: r.size, referenceSize: r.referenceSize! };
    return { kind: 'pixels', differing: r.differing!, share: r.share!, diff: r.diff ? Buffer.from(r.diff) : undefined };
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(err: Error): void {
    this.ended ??= err;
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
  }
}
