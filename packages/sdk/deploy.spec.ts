import { pickInline } from './digest-protocol';
import type { LocalFile } from './files';

const file = (sha256: string, size: number): LocalFile => ({ path: `${sha256}.txt`, absolutePath: `/x/${sha256}`, size, sha256 });

describe('pickInline', () => {
  it('takes small files, in order, while they fit the byte budget; large ones go by PUT', () => {
    const missing = [file('a', 10), file('big', 64 * 1024 + 1), file('b', 30), file('c', 70), file('d', 60)];
    expect([...pickInline(missing, 100)]).toEqual(['a', 'b', 'd']);
    expect([...pickInline(missing, 1_000_000)]).toEqual(['a', 'b', 'c', 'd']);
  });

  it('sends everything by PUT with a zero budget', () => {
    expect([...pickInline([file('a', 1), file('empty', 0)], 0)]).toEqual([]);
  });
});
