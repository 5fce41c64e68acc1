import { hostOnly } from './api-host';

describe('hostOnly', () => {
  it.each([
    ['api.example.com', 'api.example.com'],
    ['api.example.com:8443', 'api.example.com'],
    ['[::1]:3000', '[::1]'],
    ['[::1]', '[::1]'],
    ['127.0.0.1:3000', '127.0.0.1'],
  ])('%s → %s', (entry, host) => expect(hostOnly(entry)).toBe(host));
});
