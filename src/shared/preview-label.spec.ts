import fc from 'fast-check';

import { newId } from '../common/ids';
import { parsePreviewLabel, previewLabel } from './preview-label';
import { MAX_SLUG_LENGTH, newSlugProblem, SLUG_PATTERN } from './slug';

const DEP = 'dep_0123456789abcdefghijklmn';

describe('previewLabel', () => {
  it('is <slug>--<version> when that fits a DNS label', () => {
    expect(previewLabel('my-site', 12, DEP)).toBe('my-site--12');
    expect(previewLabel('a'.repeat(59), 7, DEP)).toBe(`${'a'.repeat(59)}--7`); // 62
    expect(previewLabel('a'.repeat(60), 7, DEP)).toBe(`${'a'.repeat(60)}--7`); // 63
  });

  it('is <slug prefix>--<id body> for a slug too long for the first form', () => {
    expect(previewLabel('a'.repeat(61), 7, DEP)).toBe(`${'a'.repeat(37)}--0123456789abcdefghijklmn`);
    expect(previewLabel('a'.repeat(59), 12345, DEP)).toBe(`${'a'.repeat(37)}--0123456789abcdefghijklmn`);
    // A cut that ends on "-" drops it: a label never has "---".
    expect(previewLabel(`${'a'.repeat(36)}-${'b'.repeat(26)}`, 1, DEP)).toBe(`${'a'.repeat(36)}--0123456789abcdefghijklmn`);
  });

  it('is always a DNS label that no new slug can be, and parses back to what it names', () => {
    const slugs = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/).filter((s) => newSlugProblem(s) === null);
    fc.assert(
      fc.property(slugs, fc.integer({ min: 1, max: 0x7fffffff }), (slug, version) => {
        const id = newId('dep');
        const label = previewLabel(slug, version, id);
        expect(label.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
        expect(label).toMatch(SLUG_PATTERN);
        expect(newSlugProblem(label)).not.toBeNull();
        const target = parsePreviewLabel(label)!;
        if ('version' in target) expect(target).toEqual({ slug, version });
        else expect(target.deploymentId === id && slug.startsWith(target.slugPrefix)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parsePreviewLabel', () => {
  it('reads both forms, splitting at the last "--"', () => {
    expect(parsePreviewLabel('my-site--3')).toEqual({ slug: 'my-site', version: 3 });
    expect(parsePreviewLabel('ab--3')).toEqual({ slug: 'ab', version: 3 });
    expect(parsePreviewLabel('old--slug--3')).toEqual({ slug: 'old--slug', version: 3 });
    expect(parsePreviewLabel('shop--0123456789abcdefghijklmn')).toEqual({ slugPrefix: 'shop', deploymentId: DEP });
  });

  it('leaves everything else to be a slug', () => {
    for (const label of [
      'my-site',
      'a-1',
      'site--',
      '--3',
      'a---3',
      'a--03',
      'a--0',
      'a--x',
      'a--12345678901',
      'a--2147483648',
      'a--0123456789ABCDEFGHIJKLMN',
      `${'a'.repeat(60)}--123`,
    ]) {
      expect(parsePreviewLabel(label)).toBeNull();
    }
  });
});
