import { passStride } from './sites-seed';

describe('passStride', () => {
  it.each([1, 2, 50, 1000, 7919, 10_000, 15_838])('orders a pass over %i sites as a permutation', (n) => {
    const stride = passStride(n);
    const seen = new Set<number>();
    for (let k = 0; k < n; k++) seen.add((k * stride + 13) % n);
    expect(seen.size).toBe(n);
  });

  it('does not walk the sites in order', () => {
    expect(passStride(100_000)).toBe(7919);
    expect(passStride(7919 * 2)).not.toBe(1);
  });
});
