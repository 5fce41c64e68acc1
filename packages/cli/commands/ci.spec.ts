import { CliError } from '../context';
import { commentBody, commentMarker, deployMode, githubOutputLines } from './ci';

const repo = { repository: { default_branch: 'main' } };

describe('deployMode', () => {
  it('auto: a pull request is a preview, whatever its branch', () => {
    expect(deployMode({ preview: 'auto', eventName: 'pull_request', refName: '7/merge', productionBranch: '', event: { ...repo, number: 7 } })).toEqual({
      preview: true,
      reason: 'a pull_request event',
      pullRequest: 7,
    });
    expect(
      deployMode({ preview: '', eventName: 'pull_request_target', refName: 'main', productionBranch: '', event: { pull_request: { number: 3 } } }),
    ).toMatchObject({ preview: true, pullRequest: 3 });
  });

  it('auto: the production branch (the input, else the repository’s default) publishes; another branch is a preview', () => {
    expect(deployMode({ preview: 'auto', eventName: 'push', refName: 'main', productionBranch: '', event: repo })).toMatchObject({
      preview: false,
      pullRequest: null,
    });
    expect(deployMode({ preview: 'auto', eventName: 'push', refName: 'main', productionBranch: 'release', event: repo })).toMatchObject({ preview: true });
    expect(deployMode({ preview: 'auto', eventName: 'push', refName: 'release', productionBranch: 'release', event: repo })).toMatchObject({ preview: false });
  });

  it('auto with no way to know the production branch is a preview: never live by accident', () => {
    expect(deployMode({ preview: 'auto', eventName: 'schedule', refName: 'main', productionBranch: '', event: {} })).toMatchObject({
      preview: true,
      reason: expect.stringContaining('production branch is unknown'),
    });
  });

  it('true and false win over the event; anything else is a usage error', () => {
    expect(deployMode({ preview: 'TRUE', eventName: 'push', refName: 'main', productionBranch: '', event: repo }).preview).toBe(true);
    expect(deployMode({ preview: 'false', eventName: 'pull_request', refName: '1/merge', productionBranch: '', event: { number: 1 } })).toMatchObject({
      preview: false,
      pullRequest: 1,
    });
    expect(() => deployMode({ preview: 'yes', eventName: 'push', refName: 'main', productionBranch: '', event: repo })).toThrow(CliError);
  });
});

describe('githubOutputLines', () => {
  it('writes each output as a delimited block a value cannot break out of', () => {
    const text = githubOutputLines({ url: 'https://x.example\nevil=1', 'deployment-id': 'dep_1' });
    const blocks = [...text.matchAll(/^([\w-]+)<<(ghadelimiter_[0-9a-f]{24})\n([\s\S]*?)\n\2\n/gm)].map((m) => [m[1], m[3]]);
    expect(blocks).toEqual([
      ['url', 'https://x.example\nevil=1'],
      ['deployment-id', 'dep_1'],
    ]);
  });
});

describe('commentBody', () => {
  it('starts with the project’s marker and names the address, the short commit and the deployment', () => {
    const body = commentBody({ project: 'site', url: 'https://site--3.example.app', deploymentId: 'dep_9', commitSha: '0123456789abcdef' });
    expect(body.startsWith(commentMarker('site'))).toBe(true);
    expect(body).toContain('https://site--3.example.app');
    expect(body).toContain('`0123456`');
    expect(body).toContain('`dep_9`');
    expect(commentMarker('site')).not.toBe(commentMarker('other'));
  });
});
