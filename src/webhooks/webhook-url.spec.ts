import { isSlackUrl, webhookUrlRefusal } from './webhook-url';

describe('webhookUrlRefusal', () => {
  it('takes an https URL with a public name or address', () => {
    expect(webhookUrlRefusal('https://hooks.example.com/in', false)).toBeNull();
    expect(webhookUrlRefusal('https://93.184.216.34/in', false)).toBeNull();
  });

  it('refuses http unless private addresses are allowed', () => {
    expect(webhookUrlRefusal('http://hooks.example.com/in', false)).toMatch(/must use https/);
    expect(webhookUrlRefusal('http://hooks.example.com/in', true)).toBeNull();
    expect(webhookUrlRefusal('ftp://hooks.example.com/in', true)).toMatch(/https or http/);
  });

  it.each([
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://169.254.169.254/latest',
    'https://[::1]/',
    'https://192.168.0.1/',
    'https://[::ffff:127.0.0.1]/',
  ])('refuses the literal address of %s', (url) => {
    expect(webhookUrlRefusal(url, false)).toMatch(/webhooks may not reach it/);
    expect(webhookUrlRefusal(url, true)).toBeNull();
  });

  it('refuses what is not a URL, credentials and very long URLs', () => {
    expect(webhookUrlRefusal('hooks.example.com', false)).toMatch(/absolute URL/);
    expect(webhookUrlRefusal('https://u:p@hooks.example.com/', false)).toMatch(/user name or password/);
    expect(webhookUrlRefusal(`https://hooks.example.com/${'a'.repeat(2048)}`, false)).toMatch(/longer than 2048/);
  });
});

describe('isSlackUrl', () => {
  it('knows Slack incoming webhooks by host and path', () => {
    expect(isSlackUrl('https://hooks.slack.com/services/T0/B0/xyz')).toBe(true);
    expect(isSlackUrl('https://hooks.slack.com.evil.test/services/x')).toBe(false);
    expect(isSlackUrl('https://example.com/services/x')).toBe(false);
  });
});
