import { ChargedMap, stringBytes } from './charged-map';

describe('ChargedMap', () => {
  it('charges each new key once, with its estimated bytes, and reads like a Map', () => {
    const charges: number[] = [];
    const map = new ChargedMap<string, number>(100, (b) => charges.push(b));
    map.set('/a', 1);
    map.set('/a', 2);
    map.set('/bb', 3);
    expect(charges).toEqual([100 + stringBytes('/a'), 100 + stringBytes('/bb')]);
    expect(map.get('/a')).toBe(2);
    expect(map.size).toBe(2);
    expect(map).toBeInstanceOf(Map);
  });
});
