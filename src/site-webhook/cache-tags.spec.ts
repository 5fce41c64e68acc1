import { cacheTagHeaderList } from './cache-tags';

describe('cacheTagHeaderList', () => {
  it("joins the tags as each CDN reads them: Cloudflare's with commas, Fastly's with spaces", () => {
    expect(cacheTagHeaderList(['Cache-Tag', 'Surrogate-Key'], ['a', 'b'])).toEqual(['Cache-Tag', 'a,b', 'Surrogate-Key', 'a b']);
    expect(cacheTagHeaderList(['Surrogate-Key'], ['a', 'b'])).toEqual(['Surrogate-Key', 'a b']);
    expect(cacheTagHeaderList([], ['a'])).toEqual([]);
  });
});
