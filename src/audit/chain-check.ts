/** Why a link of the chain fails (AuditVerifyView.firstBroken.reason). */
export type ChainBreak = 'hash_mismatch' | 'prev_hash_mismatch' | 'missing' | 'head_mismatch';

export interface ChainLinkInput {
  id: string;
  seq: number;
  prevHash: string;
  hash: string;
  /** The hash the entry's fields give now (audit_entry_hash). */
  recomputed: string;
}

export interface ChainVerdict {
  ok: boolean;
  entries: number;
  firstBroken: { seq: number; id: string | null; reason: ChainBreak } | null;
}

/**
 * Checks a workspace's chain link by link, fed in `seq` order (in batches, so memory stays
 * flat): from `start` (where retention cut it: the last removed entry's seq and hash, or 0
 * and '') to the recorded `head`. Reports the first break and counts every entry.
 */
export class ChainCheck {
  private expectedSeq: number;
  private expectedPrev: string;
  private entries = 0;
  private lastId: string | null = null;
  private beyondHead: { seq: number; id: string } | null = null;
  private firstBroken: ChainVerdict['firstBroken'] = null;

  constructor(
    start: { seq: number; hash: string },
    private readonly head: { seq: number; hash: string } | null,
  ) {
    this.expectedSeq = start.seq + 1;
    this.expectedPrev = start.hash;
  }

  add(link: ChainLinkInput): void {
    if (link.seq !== this.expectedSeq) this.broken(this.expectedSeq, null, 'missing');
    else if (link.recomputed !== link.hash) this.broken(link.seq, link.id, 'hash_mismatch');
    else if (link.prevHash !== this.expectedPrev) this.broken(link.seq, link.id, 'prev_hash_mismatch');
    if (link.seq > (this.head?.seq ?? 0)) this.beyondHead ??= { seq: link.seq, id: link.id };
    this.entries++;
    this.lastId = link.id;
    this.expectedSeq = link.seq + 1;
    this.expectedPrev = link.hash;
  }

  verdict(): ChainVerdict {
    // Entries removed from, or forged at, the end leave no link to fail: the head still names the last one.
    const headSeq = this.head?.seq ?? 0;
    if (this.expectedSeq - 1 < headSeq) this.broken(this.expectedSeq, null, 'missing');
    else if (this.beyondHead) this.broken(this.beyondHead.seq, this.beyondHead.id, 'head_mismatch');
    else if (this.head && this.expectedPrev !== this.head.hash) this.broken(headSeq, this.lastId, 'head_mismatch');
    return { ok: this.firstBroken === null, entries: this.entries, firstBroken: this.firstBroken };
  }

  private broken(seq: number, id: string | null, reason: ChainBreak): void {
    this.firstBroken ??= { seq, id, reason };
  }
}
