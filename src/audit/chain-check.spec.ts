import { ChainCheck, type ChainLinkInput } from './chain-check';

/** A well-formed chain of `n` links: each hash is `h<seq>`, each chains to the one before. */
function chain(n: number, from = 0): ChainLinkInput[] {
  return Array.from({ length: n }, (_, i) => {
    const seq = from + i + 1;
    return { id: `aud_${seq}`, seq, prevHash: seq === 1 ? '' : `h${seq - 1}`, hash: `h${seq}`, recomputed: `h${seq}` };
  });
}

function verdict(links: ChainLinkInput[], head: { seq: number; hash: string } | null, start = { seq: 0, hash: '' }) {
  const check = new ChainCheck(start, head);
  for (const link of links) check.add(link);
  return check.verdict();
}

describe('ChainCheck', () => {
  it('passes an intact chain, and an empty one without a head', () => {
    expect(verdict(chain(4), { seq: 4, hash: 'h4' })).toEqual({ ok: true, entries: 4, firstBroken: null });
    expect(verdict([], null)).toEqual({ ok: true, entries: 0, firstBroken: null });
  });

  it('names an edited entry, and the next one when the edit was re-hashed', () => {
    const edited = chain(4);
    edited[1] = { ...edited[1], recomputed: 'other' };
    expect(verdict(edited, { seq: 4, hash: 'h4' }).firstBroken).toEqual({ seq: 2, id: 'aud_2', reason: 'hash_mismatch' });
    const rehashed = chain(4);
    rehashed[1] = { ...rehashed[1], hash: 'x2', recomputed: 'x2' };
    expect(verdict(rehashed, { seq: 4, hash: 'h4' }).firstBroken).toEqual({ seq: 3, id: 'aud_3', reason: 'prev_hash_mismatch' });
  });

  it('names the place of a removed entry, in the middle, at the start or at the end', () => {
    const links = chain(5);
    expect(verdict([...links.slice(0, 2), ...links.slice(3)], { seq: 5, hash: 'h5' })).toEqual({
      ok: false,
      entries: 4,
      firstBroken: { seq: 3, id: null, reason: 'missing' },
    });
    expect(verdict(links.slice(1), { seq: 5, hash: 'h5' }).firstBroken).toEqual({ seq: 1, id: null, reason: 'missing' });
    expect(verdict(links.slice(0, 4), { seq: 5, hash: 'h5' }).firstBroken).toEqual({ seq: 5, id: null, reason: 'missing' });
  });

  it('notices entries past the recorded head, and a head that disagrees with the last entry', () => {
    expect(verdict(chain(3), { seq: 2, hash: 'h2' }).firstBroken).toEqual({ seq: 3, id: 'aud_3', reason: 'head_mismatch' });
    expect(verdict(chain(3), null).firstBroken).toEqual({ seq: 1, id: 'aud_1', reason: 'head_mismatch' });
    expect(verdict(chain(3), { seq: 3, hash: 'other' }).firstBroken).toEqual({ seq: 3, id: 'aud_3', reason: 'head_mismatch' });
  });

  it('starts where retention cut the chain: the first remaining entry must follow the last removed one', () => {
    const rest = chain(2, 10);
    expect(verdict(rest, { seq: 12, hash: 'h12' }, { seq: 10, hash: 'h10' })).toEqual({ ok: true, entries: 2, firstBroken: null });
    expect(verdict(rest, { seq: 12, hash: 'h12' }, { seq: 10, hash: 'forged' }).firstBroken).toEqual({ seq: 11, id: 'aud_11', reason: 'prev_hash_mismatch' });
  });

  it('reports the first break only, and counts every entry', () => {
    const links = chain(5);
    links[1] = { ...links[1], recomputed: 'x' };
    links[3] = { ...links[3], recomputed: 'y' };
    expect(verdict(links, { seq: 5, hash: 'h5' })).toEqual({ ok: false, entries: 5, firstBroken: { seq: 2, id: 'aud_2', reason: 'hash_mismatch' } });
  });
});
