import { randomBytes } from 'node:crypto';

import fc from 'fast-check';

import {
  keystreamDecrypt,
  keystreamMatches,
  leadAad,
  normalizeLeadText,
  openEmail,
  sealEmail,
  sliceOf,
  TOKEN_BITS,
  trigrams,
  WorkspaceIndex,
} from './lead-crypto';

const key = randomBytes(32);

describe('sealEmail / openEmail', () => {
  it('round-trips, with a fresh nonce every time', () => {
    const aad = leadAad('proj_a', 'lead_1');
    const a = sealEmail(key, 'ada@example.com', aad);
    const b = sealEmail(key, 'ada@example.com', aad);
    expect(a.nonce).toHaveLength(12);
    expect(a.nonce.equals(b.nonce)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.ciphertext).toHaveLength('ada@example.com'.length + 16);
    expect(openEmail(key, a, aad)).toBe('ada@example.com');
  });

  it('refuses a ciphertext moved to another lead or project (AAD binds it to its row)', () => {
    const sealed = sealEmail(key, 'ada@example.com', leadAad('proj_a', 'lead_1'));
    expect(openEmail(key, sealed, leadAad('proj_a', 'lead_2'))).toBeNull();
    expect(openEmail(key, sealed, leadAad('proj_b', 'lead_1'))).toBeNull();
  });

  it('refuses any flipped bit, a wrong key, a wrong nonce or a truncated ciphertext', () => {
    const aad = leadAad('proj_a', 'lead_1');
    const sealed = sealEmail(key, 'ada@example.com', aad);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: sealed.ciphertext.length * 8 - 1 }), (bit) => {
        const ciphertext = Buffer.from(sealed.ciphertext);
        ciphertext[bit >> 3] ^= 1 << (bit & 7);
        expect(openEmail(key, { nonce: sealed.nonce, ciphertext }, aad)).toBeNull();
      }),
    );
    expect(openEmail(randomBytes(32), sealed, aad)).toBeNull();
    expect(openEmail(key, { nonce: randomBytes(12), ciphertext: sealed.ciphertext }, aad)).toBeNull();
    expect(openEmail(key, { nonce: sealed.nonce, ciphertext: sealed.ciphertext.subarray(0, 10) }, aad)).toBeNull();
    expect(openEmail(key, { nonce: sealed.nonce.subarray(0, 8), ciphertext: sealed.ciphertext }, aad)).toBeNull();
  });
});

describe('keystreamDecrypt / keystreamMatches', () => {
  const read = (plain: Buffer, slots: Int32Array, i: number) => {
    const slot = plain.subarray(slots[i], slots[i + 1]);
    const zero = slot.indexOf(0);
    return slot.subarray(0, zero === -1 ? slot.length : zero).toString('utf8');
  };

  it('yields exactly what GCM decryption yields, each row in its own zero-padded slot', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 300 }).map((s) => s.replace(/\u0000/g, '')),
          { maxLength: 20 },
        ),
        (texts) => {
          const sealed = texts.map((t, i) => sealEmail(key, t, leadAad('proj_x', `lead_${i}`)));
          const { plain, slots } = keystreamDecrypt(key, sealed.map(sliceOf));
          expect(texts.map((_, i) => read(plain, slots, i))).toEqual(texts);
          for (let i = 0; i < texts.length; i++) {
            expect(slots[i + 1] - slots[i]).toBeGreaterThan(Buffer.byteLength(texts[i]));
            expect(plain[slots[i + 1] - 1]).toBe(0);
          }
        },
      ),
    );
  });

  it('finds exactly the rows whose plaintext contains the needle, never across two rows', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-c@.]{0,40}$/), { maxLength: 30 }), fc.stringMatching(/^[a-c@.]{1,4}$/), (texts, needle) => {
        const slices = texts.map((t, i) => sliceOf(sealEmail(key, t, leadAad('proj_x', `lead_${i}`))));
        const expected = texts.flatMap((t, i) => (t.includes(needle) ? [i] : []));
        expect(keystreamMatches(key, slices, Buffer.from(needle))).toEqual(expected);
      }),
    );
    // 16 and 32 bytes: slots exactly full of text still end in a zero byte.
    const texts = ['a'.repeat(16), 'b'.repeat(32), 'ab'];
    const slices = texts.map((t, i) => sliceOf(sealEmail(key, t, leadAad('p', `l${i}`))));
    expect(keystreamMatches(key, slices, Buffer.from('ab'))).toEqual([2]);
    expect(keystreamMatches(key, slices, Buffer.from('ba'))).toEqual([]);
    expect(keystreamMatches(key, slices, Buffer.from('a\u0000'))).toEqual([]);
    expect(keystreamMatches(key, slices, Buffer.alloc(0))).toEqual([0, 1, 2]);
  });

  it('gives garbage, not the email, under another key', () => {
    const sealed = sliceOf(sealEmail(key, 'ada@example.com', leadAad('proj_x', 'lead_1')));
    expect(keystreamMatches(randomBytes(32), [sealed], Buffer.from('ada@'))).toEqual([]);
    expect(keystreamMatches(key, [sealed], Buffer.from('ada@'))).toEqual([0]);
  });

  it('copes with malformed rows (no ciphertext, wrong nonce length) without throwing', () => {
    const rows = [sliceOf({ nonce: randomBytes(12), ciphertext: randomBytes(5) }), { buf: randomBytes(40), nonceAt: 0, bodyAt: 3, end: 40 }];
    const { slots } = keystreamDecrypt(key, rows);
    expect(Array.from(slots)).toEqual([0, 16, 16 + 48]);
  });
});

describe('trigrams and tokens', () => {
  it('takes distinct trigrams of code points', () => {
    expect(trigrams('abcab')).toEqual(['abc', 'bca', 'cab']);
    expect(trigrams('ab')).toEqual([]);
    expect(trigrams('é😀x@')).toEqual(['é😀x', '😀x@']);
  });

  it('normalises to NFC lowercase', () => {
    // "e" + combining acute becomes the one precomposed code point U+00E9.
    expect(normalizeLeadText('Ade\u0301le@Example.COM')).toBe('ad\u00e9le@example.com');
  });

  it('makes tokens that differ per workspace and per index key, stable otherwise', () => {
    const master = randomBytes(32);
    const a = new WorkspaceIndex('i1', master, 'ws_a');
    const a2 = new WorkspaceIndex('i1', master, 'ws_a');
    const b = new WorkspaceIndex('i1', master, 'ws_b');
    const c = new WorkspaceIndex('i2', randomBytes(32), 'ws_a');
    const email = 'grace.hopper@navy.example';
    expect(a.tokens(email)).toEqual(a2.tokens(email));
    expect(a.tokens(email)).not.toEqual(b.tokens(email));
    expect(a.tokens(email)).not.toEqual(c.tokens(email));
    expect(a.emailHash('proj_1', email).equals(a2.emailHash('proj_1', email))).toBe(true);
    expect(a.emailHash('proj_1', email).equals(b.emailHash('proj_1', email))).toBe(false);
    expect(a.emailHash('proj_1', email).equals(a.emailHash('proj_2', email))).toBe(false);
  });

  it('keeps tokens positive int4, one workspace tag in the high bits, TOKEN_BITS of digest below', () => {
    const index = new WorkspaceIndex('i1', randomBytes(32), 'ws_a');
    const tokens = index.tokens('someone.somewhere@example.org');
    const tags = new Set(tokens.map((t) => t >>> TOKEN_BITS));
    expect(tags.size).toBe(1);
    for (const t of tokens) expect(t > 0 && t <= 0x7fffffff).toBe(true);
  });

  it('finds every substring of 3+ characters among the email’s tokens (no false negatives)', () => {
    const index = new WorkspaceIndex('i1', randomBytes(32), 'ws_a');
    fc.assert(
      fc.property(fc.emailAddress(), fc.nat(), fc.nat(), (raw, x, y) => {
        const email = normalizeLeadText(raw);
        const chars = Array.from(email);
        const start = x % chars.length;
        const end = start + 3 + (y % Math.max(1, chars.length - start - 2));
        const sub = chars.slice(start, Math.min(end, chars.length)).join('');
        const all = new Set(index.tokens(email));
        expect(index.tokens(sub).every((t) => all.has(t))).toBe(true);
      }),
    );
  });
});
