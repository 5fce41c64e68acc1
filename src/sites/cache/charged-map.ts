/**
 * A Map that reports each new key's estimated bytes to `charge`: the memos that hang off a
 * cached site state (the router's answers, the gate's grants) grow after the state was
 * sized, and the cache must count that growth against its budget. Reads are Map's own.
 */
export class ChargedMap<K extends string, V> extends Map<K, V> {
  constructor(
    private readonly perEntry: number,
    private readonly charge: (bytes: number) => void,
  ) {
    super();
  }

  override set(key: K, value: V): this {
    if (!super.has(key)) this.charge(this.perEntry + stringBytes(key));
    return super.set(key, value);
  }
}

/** A string's estimated heap bytes: header plus two bytes a character (an upper bound for one-byte strings). */
export function stringBytes(s: string): number {
  return 16 + 2 * s.length;
}
