import { ApiError } from '../common/errors';
import { replacedNames, requestRef } from './build-ref';

describe('requestRef', () => {
  it('takes branches and tags as the branch they name, and a commit id as no branch', () => {
    expect(requestRef('main')).toEqual({ ref: 'main', branch: 'main' });
    expect(requestRef('feature/new-footer')).toEqual({ ref: 'feature/new-footer', branch: 'feature/new-footer' });
    expect(requestRef('refs/heads/main')).toEqual({ ref: 'refs/heads/main', branch: 'main' });
    expect(requestRef('3F786850E387550FDAB836ED7E6DC881DE23001B')).toEqual({ ref: '3f786850e387550fdab836ed7e6dc881de23001b', branch: null });
  });

  it.each(['', '-upload-pack=x', 'a b', 'a..b', 'a/', '/a', 'a//b', '.hidden', 'x.lock', 'a@{1}', 'a:b', 'a\nb', 'x'.repeat(256), 'a\\b'])(
    'refuses %j with a 400 naming the field',
    (ref) => {
      let error: unknown;
      try {
        requestRef(ref);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).body()).toMatchObject({ statusCode: 400, code: 'invalid_ref' });
      expect((error as ApiError).message).toMatch(/^ref: /);
    },
  );
});

describe('replacedNames', () => {
  it('a tag asked by its short or full name replaces the same tag’s builds either way', () => {
    expect(replacedNames('v2.0')).toEqual({ branches: ['v2.0', 'refs/tags/v2.0'], tags: ['v2.0', 'refs/tags/v2.0'] });
    expect(replacedNames('refs/tags/v2.0')).toEqual({ branches: ['refs/tags/v2.0'], tags: ['refs/tags/v2.0', 'v2.0'] });
  });

  it('leaves a queued build of the short name alone when the full tag name is asked: it may be a branch', () => {
    expect(replacedNames('refs/tags/main').branches).not.toContain('main');
  });

  it('a full name of another kind is only itself', () => {
    expect(replacedNames('refs/notes/x')).toEqual({ branches: ['refs/notes/x'], tags: ['refs/notes/x'] });
  });
});
