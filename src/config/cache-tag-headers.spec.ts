import { cacheTagHeaderNames } from './cache-tag-headers';

describe('cacheTagHeaderNames', () => {
  it('sends both when a purge webhook is set and nothing is said, none without one', () => {
    expect(cacheTagHeaderNames(undefined, true)).toEqual(['Cache-Tag', 'Surrogate-Key']);
    expect(cacheTagHeaderNames(undefined, false)).toEqual([]);
  });

  it('sends what is asked, in any case, each once, whatever the webhook', () => {
    expect(cacheTagHeaderNames('surrogate-key', true)).toEqual(['Surrogate-Key']);
    expect(cacheTagHeaderNames('Cache-Tag,cache-tag', false)).toEqual(['Cache-Tag']);
    expect(cacheTagHeaderNames('SURROGATE-KEY,Cache-Tag', false)).toEqual(['Cache-Tag', 'Surrogate-Key']);
    expect(cacheTagHeaderNames('none', true)).toEqual([]);
  });
});
