/** A lead's place in "newest first" order: capture time (ms), then id, both descending. */
export interface Ranked {
  t: number;
  id: string;
}

/** True when `a` comes before `b` in newest-first order (the SQL `ORDER BY captured_at DESC, id DESC`). */
export function newerThan(a: Ranked, b: Ranked): boolean {
  return a.t > b.t || (a.t === b.t && a.id > b.id);
}

/**
 * Keeps the `k` newest of a stream of items in O(k) memory (a min-heap whose top
 * is the oldest kept), so a page of a search over many matches does not hold
 * every match.
 */
export class NewestK<T extends Ranked> {
  private readonly heap: T[] = [];
  count = 0;

  constructor(private readonly k: number) {}

  push(item: T): void {
    this.count++;
    if (this.k <= 0) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (newerThan(item, heap[0])) {
      heap[0] = item;
      this.down(0);
    }
  }

  /** The kept items, newest first. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (newerThan(a, b) ? -1 : newerThan(b, a) ? 1 : 0));
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!newerThan(heap[parent], heap[i])) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let oldest = i;
      if (l < heap.length && newerThan(heap[oldest], heap[l])) oldest = l;
      if (r < heap.length && newerThan(heap[oldest], heap[r])) oldest = r;
      if (oldest === i) return;
      [heap[oldest], heap[i]] = [heap[i], heap[oldest]];
      i = oldest;
    }
  }
}
