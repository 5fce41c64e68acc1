import type { IncomingMessage } from 'node:http';

import { clientAddress } from './client-address';

const req = (remoteAddress: string, xff?: string) =>
  ({ socket: { remoteAddress }, headers: xff ? { 'x-forwarded-for': xff } : {} }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  it('is the peer unless the proxy is trusted', () => {
    expect(clientAddress(req('10.0.0.1', '1.2.3.4'), false)).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', '1.2.3.4, 10.0.0.1'), true)).toBe('1.2.3.4');
  });

  it('ignores a forwarded value that is not an address', () => {
    expect(clientAddress(req('10.0.0.1', 'anything-i-like'), true)).toBe('10.0.0.1');
  });
});
