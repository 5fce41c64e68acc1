import { namesRepository, repositoryId, sameRepository } from './repository-url';

describe('sameRepository', () => {
  it('matches the forms a forge writes for one repository', () => {
    const project = 'https://github.com/Codertocat/Hello-World.git';
    for (const url of [
      'https://github.com/Codertocat/Hello-World',
      'https://github.com/codertocat/hello-world.git',
      'https://GitHub.com/Codertocat/Hello-World/',
      'https://github.com:443/Codertocat/Hello-World.git',
      'http://github.com/Codertocat/Hello-World',
      'git@github.com:Codertocat/Hello-World.git',
      'ssh://git@github.com/Codertocat/Hello-World.git',
      'git://github.com/Codertocat/Hello-World.git',
      'https://token@github.com/Codertocat/Hello-World.git',
    ]) {
      expect([url, sameRepository(url, project)]).toEqual([url, true]);
    }
    // A self-hosted forge on its own port, and its ssh URL on another.
    expect(sameRepository('http://localhost:3000/gitea/webhooks.git', 'http://localhost:3000/gitea/webhooks')).toBe(true);
    expect(sameRepository('ssh://gitea@gitea.example:2222/gitea/webhooks.git', 'https://gitea.example/gitea/webhooks')).toBe(true);
  });

  it('tells different repositories apart', () => {
    const project = 'https://github.com/Codertocat/Hello-World.git';
    for (const url of [
      'https://github.com/Octocat/Hello-World.git',
      'https://github.com/Codertocat/Hello-World-2.git',
      'https://gitlab.com/Codertocat/Hello-World.git',
      'https://github.com/Codertocat/Hello-World/tree/main',
      'https://github.com.evil.example/Codertocat/Hello-World.git',
      'http://localhost:3000/Codertocat/Hello-World.git',
      'http://github.com:8080/Codertocat/Hello-World.git',
    ]) {
      expect([url, sameRepository(url, project)]).toEqual([url, false]);
    }
  });

  it('matches nothing that is not a repository URL', () => {
    for (const url of [
      '',
      'not a url',
      'file:///srv/repo.git',
      'https://github.com/',
      'https://github.com/a/../b',
      'https://github.com/owner',
      null,
      undefined,
    ]) {
      expect(sameRepository(url, url)).toBe(false);
    }
    expect(repositoryId('ext::sh -c touch% /tmp/x')).toBeNull();
  });

  it('finds the project among a payload’s URLs', () => {
    const urls = ['http://example.com/mike/diaspora.git', 'http://example.com/mike/diaspora', 'git@example.com:mike/diaspora.git'];
    expect(namesRepository(urls, 'https://example.com/Mike/Diaspora')).toBe(true);
    expect(namesRepository(urls, 'https://example.com/mike/other')).toBe(false);
    expect(namesRepository([], 'https://example.com/mike/diaspora')).toBe(false);
  });
});
