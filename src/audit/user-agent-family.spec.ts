import { userAgentFamily } from './user-agent-family';

describe('userAgentFamily', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1', 'Safari'],
    ['curl/8.5.0', 'curl'],
    ['statichost-sdk/1.4.0 node/20.20.0', 'statichost-sdk'],
    ['node', 'node'],
  ])('%s is %s', (userAgent, family) => {
    expect(userAgentFamily(userAgent)).toBe(family);
  });

  it('keeps nothing of a header that is not a product token', () => {
    expect(userAgentFamily('')).toBeNull();
    expect(userAgentFamily(undefined)).toBeNull();
    expect(userAgentFamily('<script>alert(1)</script>')).toBeNull();
  });
});
