import type { Build } from '../../sdk';
import { buildOutcome, describeRef, formatDuration } from './builds';

const build = (over: Partial<Build>): Build =>
  ({
    id: 'bld_1',
    projectId: 'proj_1',
    status: 'ready',
    trigger: 'manual',
    ref: 'main',
    branch: 'main',
    commitSha: '0123456789abcdef0123456789abcdef01234567',
    commitMessage: 'Fix the header\n\nLonger text',
    pullRequest: null,
    deploymentId: 'dep_1',
    url: 'http://site.localhost:3000',
    detected: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: '2026-01-01T00:00:01.000Z',
    finishedAt: '2026-01-01T00:00:13.300Z',
    durationMs: 12_300,
    error: null,
    ...over,
  }) as Build;

describe('build output for people', () => {
  it('formats durations', () => {
    expect(formatDuration(null)).toBe('-');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });

  it('names what was built: branch (or pull request, or the ref), short commit, the message’s first line', () => {
    expect(describeRef(build({}))).toBe('main @ 0123456 "Fix the header"');
    expect(describeRef(build({ pullRequest: 7 }))).toBe('#7 @ 0123456 "Fix the header"');
    expect(describeRef(build({ branch: null, ref: 'v1.0', commitSha: null, commitMessage: null }))).toBe('v1.0');
  });

  it('ends a followed build with its outcome: the url when ready, the error when not', () => {
    expect(buildOutcome(build({}))).toBe('Build bld_1 is ready (12.3 s): http://site.localhost:3000');
    expect(buildOutcome(build({ status: 'failed', error: 'npm run build exited with code 1', url: null }))).toBe(
      'Build bld_1 failed: npm run build exited with code 1',
    );
    expect(buildOutcome(build({ status: 'timed_out', durationMs: 900_000, error: null }))).toBe('Build bld_1 timed out after 15 min 0 s');
    expect(buildOutcome(build({ status: 'canceled' }))).toBe('Build bld_1 was canceled');
  });
});
