import fc from 'fast-check';

import { newerThan, NewestK, type Ranked } from './newest';

const order = (a: Ranked, b: Ranked) => (newerThan(a, b) ? -1 : newerThan(b, a) ? 1 : 0);

describe('NewestK', () => {
  it('keeps exactly the k newest, newest first, and counts everything pushed', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ t: fc.integer({ min: 0, max: 50 }), id: fc.string({ maxLength: 3 }) })), fc.integer({ min: 0, max: 30 }), (items, k) => {
        const top = new NewestK<Ranked>(k);
        items.forEach((i) => top.push(i));
        expect(top.count).toBe(items.length);
        expect(top.sorted()).toEqual([...items].sort(order).slice(0, k));
      }),
    );
  });

  it('keeps everything with an infinite k', () => {
    const top = new NewestK<Ranked>(Number.POSITIVE_INFINITY);
    [3, 1, 2].forEach((t) => top.push({ t, id: String(t) }));
    expect(top.sorted().map((r) => r.t)).toEqual([3, 2, 1]);
  });

  it('breaks capture-time ties by id, descending', () => {
    expect(newerThan({ t: 1, id: 'lead_b' }, { t: 1, id: 'lead_a' })).toBe(true);
    expect(newerThan({ t: 2, id: 'lead_a' }, { t: 1, id: 'lead_z' })).toBe(true);
  });
});
