import { ID_BODY_LENGTH, isId, newId, randomString } from './ids';

describe('ids', () => {
  it('prefixes a URL-safe random body', () => {
    const id = newId('proj');
    expect(id).toMatch(new RegExp(`^proj_[0-9a-z]{${ID_BODY_LENGTH}}$`));
    expect(isId('proj', id)).toBe(true);
    expect(encodeURIComponent(id)).toBe(id);
  });

  it('never repeats across many draws', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => newId('dep')));
    expect(seen.size).toBe(10_000);
  });

  it('recognises only its own prefix and shape', () => {
    expect(isId('ws', newId('proj'))).toBe(false);
    expect(isId('ws', 'ws_short')).toBe(false);
    expect(isId('ws', `ws_${'A'.repeat(ID_BODY_LENGTH)}`)).toBe(false);
    expect(isId('ws', 42)).toBe(false);
  });

  it('draws every character of the alphabet roughly evenly', () => {
    const counts = new Map<string, number>();
    for (const ch of randomString(36_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(36);
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(700);
      expect(n).toBeLessThan(1300);
    }
  });
});
