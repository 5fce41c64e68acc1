import { usagePercent } from './usage.view';

describe('usagePercent', () => {
  it('is used / limit × 100 with one decimal, null when unlimited', () => {
    expect(usagePercent(1, 3)).toBe(33.3);
    expect(usagePercent(2, 3)).toBe(66.7);
    expect(usagePercent(0, 10)).toBe(0);
    expect(usagePercent(10, 10)).toBe(100);
    expect(usagePercent(5, null)).toBeNull();
  });

  it('goes past 100 when usage went past the limit (bandwidth is counted after it is served)', () => {
    expect(usagePercent(150, 100)).toBe(150);
  });

  it('treats a zero limit as reached by anything, never as a division by zero', () => {
    expect(usagePercent(0, 0)).toBe(0);
    expect(usagePercent(1, 0)).toBe(100);
  });

  it('keeps large byte counts exact enough', () => {
    const tib = 1024 ** 4;
    expect(usagePercent(tib / 2, tib)).toBe(50);
    expect(usagePercent(3 * tib, 5 * tib)).toBe(60);
  });
});
