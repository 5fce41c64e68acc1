import { inRuns, warmHostOf } from './warm-hosts';

describe('warmHostOf', () => {
  it('keeps slug and custom-domain keys', () => {
    expect(warmHostOf('s:blog')).toEqual({ kind: 's', name: 'blog' });
    expect(warmHostOf('d:www.example.com')).toEqual({ kind: 'd', name: 'www.example.com' });
  });

  it('refuses preview keys, empty names, overlong names and other text', () => {
    expect(warmHostOf('p:blog--3')).toBeNull();
    expect(warmHostOf('s:')).toBeNull();
    expect(warmHostOf(`d:${'a'.repeat(254)}`)).toBeNull();
    expect(warmHostOf(`d:${'a'.repeat(253)}`)).toEqual({ kind: 'd', name: 'a'.repeat(253) });
    expect(warmHostOf('blog')).toBeNull();
    expect(warmHostOf('')).toBeNull();
  });
});

describe('inRuns', () => {
  it('splits a list into runs of the size, the last one shorter', () => {
    expect(inRuns([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inRuns([], 3)).toEqual([]);
    expect(() => inRuns([1], 0)).toThrow('run size must be at least 1');
  });
});
