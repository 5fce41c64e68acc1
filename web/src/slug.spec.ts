import fc from 'fast-check';

import { slugFromName } from '../../packages/cli/format';
import { slugOf } from './slug';

describe('slugOf (the onboarding page’s site address)', () => {
  it('names a site as the CLI does: accents dropped, anything else a single dash, at most 63 characters', () => {
    expect(slugOf('My Portfolio')).toBe('my-portfolio');
    expect(slugOf('  Café  Olé! ')).toBe('cafe-ole');
    expect(slugOf('---')).toBe('');
    expect(slugOf('a'.repeat(62) + ' b')).toBe('a'.repeat(62));
  });

  it('is the CLI’s slugFromName for any name, so the page’s `--project` line matches what the CLI creates', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (name) => slugOf(name) === slugFromName(name)));
  });
});
