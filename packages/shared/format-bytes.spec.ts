import { formatBytes } from './format-bytes';

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [500 * 1024 * 1024, '500 MB'],
    [64 * 1024, '64 KB'],
    [3.5 * 1024 * 1024, '3.5 MB'],
    [10 * 1024 ** 2 + 1, '10 MB'],
    [5 * 1024 ** 3, '5 GB'],
  ])('%d → %s', (n, text) => expect(formatBytes(n)).toBe(text));
});
