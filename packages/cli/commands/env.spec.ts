import { InvalidArgumentError } from 'commander';

import { envName, envTargets } from './env';

describe('env set: targets and names', () => {
  it('defaults to both targets; each flag alone narrows to it', () => {
    expect(envTargets({})).toEqual(['production', 'preview']);
    expect(envTargets({ production: true })).toEqual(['production']);
    expect(envTargets({ preview: true })).toEqual(['preview']);
    expect(envTargets({ production: true, preview: true })).toEqual(['production', 'preview']);
  });

  it('takes the API’s names and refuses others before asking for a value', () => {
    for (const ok of ['API_KEY', '_x', 'a1', 'A'.repeat(256)]) expect(envName(ok)).toBe(ok);
    for (const bad of ['1ABC', 'API-KEY', 'A B', '', 'É', 'A'.repeat(257)]) expect(() => envName(bad)).toThrow(InvalidArgumentError);
  });
});
