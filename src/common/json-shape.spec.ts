import { checkJsonShape, jsonShapeLimits } from './json-shape';

describe('checkJsonShape', () => {
  const limits = { maxDepth: 3, maxKeysPerObject: 3, maxValues: 10 };

  it('accepts values within every bound, and scalars', () => {
    expect(checkJsonShape({ a: 1, b: [1, 2], c: { d: 'x' } }, limits)).toBeUndefined();
    expect(checkJsonShape([[[1]]], limits)).toBeUndefined();
    expect(checkJsonShape('text', limits)).toBeUndefined();
    expect(checkJsonShape(null, limits)).toBeUndefined();
  });

  it('names where the body is nested too deep, for objects and arrays', () => {
    expect(checkJsonShape({ a: { b: { c: { d: 1 } } } }, limits)).toBe('body.a.b.c: the body is nested more than 3 levels deep');
    expect(checkJsonShape([[[[1]]]], limits)).toBe('body[0][0][0]: the body is nested more than 3 levels deep');
  });

  it('names an object with too many keys, quoting odd keys', () => {
    expect(checkJsonShape({ files: [{ a: 1, b: 2, c: 3, d: 4 }] }, limits)).toBe('body.files[0]: an object with 4 keys; at most 3 are allowed');
    expect(checkJsonShape({ 'a b': { a: 1, b: 2, c: 3, d: 4 } }, limits)).toBe('body["a b"]: an object with 4 keys; at most 3 are allowed');
  });

  it('bounds the values of the whole body, members and elements alike', () => {
    expect(checkJsonShape({ a: [1, 2, 3, 4, 5, 6, 7, 8] }, limits)).toBeUndefined();
    expect(checkJsonShape({ a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }, limits)).toMatch(/more than 10 values/);
    expect(checkJsonShape([{ a: 1, b: 2 }, { a: 1, b: 2 }, { a: 1, b: 2 }, { a: 1 }], limits)).toMatch(/more than 10 values/);
  });

  it('walks 100,000 nesting levels without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(checkJsonShape(deep, { ...limits, maxDepth: 1_000_000, maxValues: 1_000_000 })).toBeUndefined();
  });

  it('lets the largest deploy through: every file entry with all its fields', () => {
    const max = 2000;
    const files = Array.from({ length: max }, (_, i) => ({ path: `f${i}`, sha256: 'a'.repeat(64), size: 1, encoding: 'utf8' }));
    expect(checkJsonShape({ project_slug: 's', type: 'static', ttl: '1h', files }, jsonShapeLimits(max))).toBeUndefined();
  });
});
