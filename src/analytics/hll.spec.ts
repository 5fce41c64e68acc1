import { createHash } from 'node:crypto';

import { addHash, emptySketch, estimate, HLL_REGISTERS, HLL_STANDARD_ERROR, mergeDense, mergeSparse, type SparseSketch } from './hll';

const hashOf = (s: string) => createHash('sha256').update(s).digest();

function sketchOf(keys: string[]): Buffer {
  const sparse: SparseSketch = new Map();
  for (const k of keys) addHash(sparse, hashOf(k));
  const dense = emptySketch();
  mergeSparse(dense, sparse);
  return dense;
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => `visitor-${from + i}`);

describe('HyperLogLog', () => {
  it('is 0 when empty and exact for a handful of visitors (no two sharing a register)', () => {
    expect(estimate(emptySketch())).toBe(0);
    expect(estimate(sketchOf(range(0, 1)))).toBe(1);
    expect(estimate(sketchOf(range(0, 37)))).toBe(37);
  });

  it('counts a visitor seen many times once', () => {
    const repeated = sketchOf([...range(0, 50), ...range(0, 50), ...range(0, 50)]);
    expect(repeated.equals(sketchOf(range(0, 50)))).toBe(true);
    // Two of 50 visitors may share a register (≈7 %): small counts are within one.
    expect(Math.abs(estimate(repeated) - 50)).toBeLessThanOrEqual(1);
  });

  it.each([1_000, 20_000, 200_000])('estimates %i distinct visitors within 3 standard errors', (n) => {
    const got = estimate(sketchOf(range(0, n)));
    expect(Math.abs(got - n) / n).toBeLessThan(3 * HLL_STANDARD_ERROR);
  });

  it('states its error: ~0.81 % at p=14', () => {
    expect(HLL_REGISTERS).toBe(16384);
    expect(HLL_STANDARD_ERROR).toBeCloseTo(0.0081, 4);
  });

  it('merges overlapping sketches as a union (not a sum), in any order, idempotently', () => {
    const a = sketchOf(range(0, 30_000));
    const b = sketchOf(range(20_000, 30_000)); // 10,000 shared
    const union = sketchOf(range(0, 50_000));
    const ab = emptySketch();
    mergeDense(ab, a);
    mergeDense(ab, b);
    const ba = emptySketch();
    mergeDense(ba, b);
    mergeDense(ba, a);
    mergeDense(ba, a);
    expect(ab.equals(union)).toBe(true);
    expect(ba.equals(union)).toBe(true);
  });

  it('refuses a sketch of another size', () => {
    expect(() => mergeDense(emptySketch(), Buffer.alloc(10))).toThrow(/10 bytes/);
  });
});
