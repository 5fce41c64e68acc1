import type { IncomingMessage } from 'node:http';

import express from 'express';
import request from 'supertest';

import { parseTrustProxy, type TrustProxy } from '../config/trust-proxy';
import { clientAddress } from './client-address';

const req = (remoteAddress: string, xff?: string) =>
  ({ socket: { remoteAddress }, connection: { remoteAddress }, headers: xff ? { 'x-forwarded-for': xff } : {} }) as unknown as IncomingMessage;

const trust = (setting: string): TrustProxy => {
  const parsed = parseTrustProxy(setting);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

describe('clientAddress', () => {
  it('is "unknown" once Node has detached the socket (a closed connection), instead of throwing', () => {
    const detached = { socket: null, connection: null, headers: { 'x-forwarded-for': '1.2.3.4' } } as unknown as IncomingMessage;
    expect(clientAddress(detached, trust('true'))).toBe('unknown');
  });

  it('is the peer unless a proxy is trusted', () => {
    expect(clientAddress(req('10.0.0.1', '1.2.3.4'), trust('false'))).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', '1.2.3.4'), trust('0'))).toBe('10.0.0.1');
  });

  it('true is one hop: the entry the proxy in front wrote, not the first one a client sent', () => {
    expect(clientAddress(req('127.0.0.1', '1.2.3.4'), trust('true'))).toBe('1.2.3.4');
    expect(clientAddress(req('127.0.0.1', '6.6.6.6, 1.2.3.4'), trust('true'))).toBe('1.2.3.4');
    expect(clientAddress(req('127.0.0.1'), trust('true'))).toBe('127.0.0.1');
  });

  it('takes the address that many hops from the right behind a chain of proxies', () => {
    // client 203.0.113.7 → proxy A (10.0.0.2) → proxy B (the peer); 6.6.6.6 is forged by the client.
    const chain = req('10.0.0.3', '6.6.6.6, 203.0.113.7, 10.0.0.2');
    expect(clientAddress(chain, trust('2'))).toBe('203.0.113.7');
    expect(clientAddress(chain, trust('10.0.0.0/8'))).toBe('203.0.113.7');
    expect(clientAddress(chain, trust('10.0.0.3, 10.0.0.2'))).toBe('203.0.113.7');
    // Only B listed: A is where the request came from.
    expect(clientAddress(chain, trust('10.0.0.3'))).toBe('10.0.0.2');
  });

  it('never takes a forwarded value that is not an address', () => {
    expect(clientAddress(req('10.0.0.1', 'anything-i-like'), trust('true'))).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', 'anything-i-like, 10.0.0.2'), trust('2'))).toBe('10.0.0.2');
  });

  it('answers as Express req.ip does with the same trust function', async () => {
    const settings = ['false', 'true', '2', '3', 'loopback', 'loopback, 10.0.0.0/8', '10.0.0.0/8'];
    const chains = [undefined, '203.0.113.7', '6.6.6.6, 203.0.113.7', '6.6.6.6, 203.0.113.7, 10.0.0.2', '2001:db8::1, 10.1.2.3'];
    for (const setting of settings) {
      const app = express();
      app.set('trust proxy', trust(setting));
      app.get('/', (r, res) => void res.json({ ip: r.ip, ours: clientAddress(r, trust(setting)) }));
      for (const xff of chains) {
        const call = request(app).get('/');
        const { body } = (await (xff ? call.set('X-Forwarded-For', xff) : call)) as { body: { ip: string; ours: string } };
        expect({ setting, xff, ip: body.ours }).toEqual({ setting, xff, ip: body.ip });
      }
    }
  });
});

describe('parseTrustProxy', () => {
  it('says what is wrong with a bad setting', () => {
    expect(parseTrustProxy('11')).toMatch(/at most 10 hops/);
    expect(parseTrustProxy('10.0.0.0/33')).toMatch(/^TRUST_PROXY must be .*10\.0\.0\.0\/33/);
    expect(parseTrustProxy('proxy.example.com')).toMatch(/^TRUST_PROXY must be/);
    expect(parseTrustProxy('10.0.0.1,,10.0.0.2')).toMatch(/^TRUST_PROXY must be/);
  });

  it('keeps the boolean spellings', () => {
    for (const yes of ['true', 'TRUE', 'yes', 'on', '1']) expect((parseTrustProxy(yes) as TrustProxy)('127.0.0.1', 0)).toBe(true);
    for (const no of ['false', 'no', 'off', '0', '']) expect((parseTrustProxy(no) as TrustProxy)('127.0.0.1', 0)).toBe(false);
  });
});
