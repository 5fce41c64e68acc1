import { searchFilter } from './deployment-search';

describe('searchFilter: what a deployment history search means', () => {
  it('reads a number, with or without v, as a version', () => {
    expect(searchFilter('12')).toEqual({ version: 12 });
    expect(searchFilter('v12')).toEqual({ version: 12 });
    expect(searchFilter('V012')).toEqual({ version: 12 });
  });

  it('names no deployment for version 0 or one past the integer column', () => {
    expect(searchFilter('v0')).toBeNull();
    expect(searchFilter('2147483647')).toEqual({ version: 2_147_483_647 });
    expect(searchFilter('2147483648')).toBeNull();
  });

  it('reads a whole user or token id as who deployed, in any case', () => {
    expect(searchFilter('tok_0123456789abcdefghijklmn')).toEqual({ createdBy: 'tok_0123456789abcdefghijklmn' });
    expect(searchFilter('USR_0123456789ABCDEFGHIJKLMN')).toEqual({ createdBy: 'usr_0123456789abcdefghijklmn' });
  });

  it('reads anything else as the start of a deployment id, dep_ optional', () => {
    expect(searchFilter('dep_3kx')).toEqual({ idPrefix: 'dep_3kx' });
    expect(searchFilter('3KX9')).toEqual({ idPrefix: 'dep_3kx9' });
    expect(searchFilter('dep_')).toEqual({ idPrefix: 'dep_' });
    // A partial token id is not who deployed: it is read as an id prefix, which no deployment has.
    expect(searchFilter('tok_0123')).toBeNull();
  });

  it('names no deployment for characters no id holds (so nothing reaches LIKE as a wildcard)', () => {
    for (const text of ['%', 'dep__', 'dep_a%', 'a b', 'dep-3kx', 'é']) expect(searchFilter(text)).toBeNull();
  });

  it('is no filter without a search', () => {
    expect(searchFilter(undefined)).toEqual({});
  });
});
