import { describePreview } from './previews';

describe('describePreview', () => {
  it('a pull request by number with its head branch; a branch by name', () => {
    expect(describePreview({ kind: 'pull_request', pullRequest: 12, branch: 'feature/login' })).toBe('#12 (feature/login)');
    expect(describePreview({ kind: 'pull_request', pullRequest: 3, branch: null })).toBe('#3');
    expect(describePreview({ kind: 'branch', pullRequest: null, branch: 'docs' })).toBe('docs');
  });
});
