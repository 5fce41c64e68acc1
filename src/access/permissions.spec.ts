import { missingScopes, scopesForRole, sortScopes } from './permissions';

describe('scopesForRole', () => {
  it('gives a viewer read only, admins and owners every scope', () => {
    expect(scopesForRole('viewer')).toEqual(['read']);
    expect(scopesForRole('admin')).toEqual(['deploy', 'read', 'delete', 'admin']);
    expect(scopesForRole('owner')).toEqual(['deploy', 'read', 'delete', 'admin']);
  });

  it('returns a copy that callers may change', () => {
    scopesForRole('viewer').push('admin');
    expect(scopesForRole('viewer')).toEqual(['read']);
  });
});

describe('missingScopes', () => {
  it('lists what is required and not held', () => {
    expect(missingScopes(['admin', 'deploy'], ['read', 'deploy'])).toEqual(['admin']);
    expect(missingScopes(['read'], ['read'])).toEqual([]);
    expect(missingScopes([], [])).toEqual([]);
    expect(missingScopes(['delete', 'deploy'], [])).toEqual(['deploy', 'delete']);
  });
});

describe('sortScopes', () => {
  it('drops duplicates and uses the canonical order', () => {
    expect(sortScopes(['admin', 'read', 'admin', 'deploy'])).toEqual(['deploy', 'read', 'admin']);
  });
});
