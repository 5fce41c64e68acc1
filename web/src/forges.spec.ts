import { inferForge, webhookSetups } from './forges';

describe('webhook setup hints', () => {
  it('infers the forge from the repository host, and only from its host', () => {
    expect(inferForge('https://github.com/acme/site.git')).toBe('github');
    expect(inferForge('https://github.acme.dev/acme/site.git')).toBe('github');
    expect(inferForge('https://gitlab.com/acme/site.git')).toBe('gitlab');
    expect(inferForge('https://gitlab.acme.dev/group/site.git')).toBe('gitlab');
    expect(inferForge('https://codeberg.org/acme/site.git')).toBe('forgejo');
    expect(inferForge('https://gitea.com/acme/site.git')).toBe('gitea');
    expect(inferForge('https://git.acme.dev/acme/site.git')).toBeNull();
    // A path or a look-alike host names nothing.
    expect(inferForge('https://git.acme.dev/github/site.git')).toBeNull();
    expect(inferForge('https://notgithub.com/acme/site.git')).toBeNull();
    expect(inferForge('not a url')).toBeNull();
  });

  it('shows the chosen forge’s steps, else the inferred one’s, else every forge’s', () => {
    const github = webhookSetups('github', 'https://git.acme.dev/a/b.git');
    expect(github.map((s) => s.name)).toEqual(['GitHub']);
    expect(github[0].steps.join(' ')).toMatch(/application\/json/);
    expect(github[0].steps.join(' ')).toMatch(/Pushes and Pull requests/);
    expect(webhookSetups(null, 'https://gitlab.com/a/b.git')[0].steps.join(' ')).toMatch(/Secret token/);
    expect(webhookSetups(undefined, 'https://codeberg.org/a/b.git').map((s) => s.name)).toEqual(['Forgejo']);
    expect(webhookSetups(null, 'https://git.acme.dev/a/b.git').map((s) => s.name)).toEqual(['GitHub', 'GitLab', 'Gitea or Forgejo']);
  });
});
