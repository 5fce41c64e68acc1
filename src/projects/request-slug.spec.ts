import type { ApiError } from '../common/errors';
import { requestNewSlug, requestSlug } from './request-slug';

describe('requestSlug and requestNewSlug', () => {
  it('at the edge, a refused slug is a 400 invalid_slug naming the field', () => {
    expect(requestSlug('shop--2', 'project_slug')).toBe('shop--2');
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as ApiError).body();
      }
      return undefined;
    };
    expect(refusal(() => requestNewSlug('shop--2', 'slug'))).toMatchObject({
      statusCode: 400,
      code: 'invalid_slug',
      message: expect.stringMatching(/^slug: .*"--" is reserved/),
    });
    expect(refusal(() => requestSlug('api', 'project_slug'))).toMatchObject({
      statusCode: 400,
      code: 'invalid_slug',
      message: 'project_slug: slug "api" is reserved',
    });
  });
});
