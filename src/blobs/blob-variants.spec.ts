import { assertValidKey } from '../storage/storage.provider';
import { blobKey, variantKey } from './blob-keys';
import { worthStoring } from './blob-variants.service';

describe('compressed copies', () => {
  const sha = 'ab'.repeat(32);

  it('keeps a copy only when it saves at least 10 %', () => {
    expect(worthStoring(900, 1000)).toBe(true);
    expect(worthStoring(901, 1000)).toBe(false);
    expect(worthStoring(1200, 1000)).toBe(false);
  });

  it('stores copies beside the blob under valid keys derived from the hash only', () => {
    expect(variantKey(sha, 'br')).toBe(`${blobKey(sha)}.br`);
    expect(variantKey(sha, 'gzip')).toBe(`${blobKey(sha)}.gz`);
    for (const e of ['br', 'gzip'] as const) expect(() => assertValidKey(variantKey(sha, e))).not.toThrow();
  });
});
