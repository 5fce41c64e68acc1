import { hasFileExtension, notFoundAnswer } from './not-found';

const site = (...files: string[]) => {
  const set = new Set(files);
  return (p: string) => set.has(p);
};

describe('notFoundAnswer', () => {
  it('serves the closest 404.html up the tree with status 404', () => {
    const has = site('index.html', '404.html', 'blog/404.html', 'blog/2024/x.html');
    expect(notFoundAnswer('blog/missing', 'GET', has)).toEqual({ kind: 'file', path: 'blog/404.html', status: 404 });
    expect(notFoundAnswer('blog/2024/missing', 'GET', has)).toEqual({ kind: 'file', path: 'blog/404.html', status: 404 });
    expect(notFoundAnswer('blog/missing/', 'GET', has)).toEqual({ kind: 'file', path: 'blog/404.html', status: 404 });
    expect(notFoundAnswer('docs/missing', 'GET', has)).toEqual({ kind: 'file', path: '404.html', status: 404 });
    expect(notFoundAnswer('missing', 'GET', has)).toEqual({ kind: 'file', path: '404.html', status: 404 });
    expect(notFoundAnswer('app.js', 'GET', has)).toEqual({ kind: 'file', path: '404.html', status: 404 });
  });

  it('looks in the directory itself first for a path ending in "/"', () => {
    const has = site('404.html', 'a/b/404.html');
    expect(notFoundAnswer('a/b/', 'GET', has)).toMatchObject({ path: 'a/b/404.html' });
    expect(notFoundAnswer('a/b', 'GET', has)).toMatchObject({ path: '404.html' });
  });

  it('without a top-level 404.html, serves index.html for application routes (single-page app)', () => {
    const has = site('index.html', 'assets/app.3f9a8c1b.js');
    expect(notFoundAnswer('settings/profile', 'GET', has)).toEqual({ kind: 'file', path: 'index.html', status: 200 });
    expect(notFoundAnswer('settings/', 'HEAD', has)).toEqual({ kind: 'file', path: 'index.html', status: 200 });
    expect(notFoundAnswer('users/jane.doe', 'GET', has)).toEqual({ kind: 'file', path: 'index.html', status: 200 });
    expect(notFoundAnswer('docs/v1.2', 'GET', has)).toEqual({ kind: 'file', path: 'index.html', status: 200 });
  });

  it('still answers 404 for missing assets, other methods, and sites without index.html', () => {
    const has = site('index.html');
    expect(notFoundAnswer('app.js', 'GET', has)).toEqual({ kind: 'not_found' });
    expect(notFoundAnswer('assets/logo.png', 'GET', has)).toEqual({ kind: 'not_found' });
    expect(notFoundAnswer('old.php', 'GET', has)).toEqual({ kind: 'not_found' });
    expect(notFoundAnswer('missing.html', 'GET', has)).toEqual({ kind: 'not_found' });
    expect(notFoundAnswer('settings', 'POST', has)).toEqual({ kind: 'not_found' });
    expect(notFoundAnswer('settings', 'GET', site('about.html'))).toEqual({ kind: 'not_found' });
  });

  it('uses a nested 404.html before the application fallback', () => {
    const has = site('index.html', 'blog/404.html');
    expect(notFoundAnswer('blog/x', 'GET', has)).toEqual({ kind: 'file', path: 'blog/404.html', status: 404 });
    expect(notFoundAnswer('shop/x', 'GET', has)).toEqual({ kind: 'file', path: 'index.html', status: 200 });
  });
});

describe('hasFileExtension', () => {
  it.each([
    ['app.js', true],
    ['a/b/logo.PNG', true],
    ['site.webmanifest', true],
    ['x.html', true],
    ['settings', false],
    ['settings/', false],
    ['', false],
    ['.env', false],
    ['jane.doe', false],
    ['v1.2', false],
    ['a.js/b', false],
  ])('%j → %s', (path, expected) => {
    expect(hasFileExtension(path)).toBe(expected);
  });
});
