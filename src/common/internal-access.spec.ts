import { isInternalCaller, isLoopback } from './internal-access';

const TOKEN = 'x'.repeat(40);

describe('isLoopback', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])('%s is loopback', (a) => expect(isLoopback(a)).toBe(true));
  it.each(['10.0.0.1', '::ffff:10.0.0.1', '172.17.0.2', '::', undefined, '1.2.7.127'])('%s is not', (a) => expect(isLoopback(a)).toBe(false));
});

describe('isInternalCaller', () => {
  it('takes a direct loopback caller without a token', () => {
    expect(isInternalCaller('127.0.0.1', {}, undefined)).toBe(true);
  });

  it('refuses a loopback connection that a proxy forwards for someone else', () => {
    expect(isInternalCaller('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }, undefined)).toBe(false);
    expect(isInternalCaller('::1', { forwarded: 'for=203.0.113.9' }, undefined)).toBe(false);
    expect(isInternalCaller('127.0.0.1', { 'x-real-ip': '203.0.113.9' }, TOKEN)).toBe(false);
  });

  it('takes any address with the right bearer token, and only the exact token', () => {
    expect(isInternalCaller('10.1.2.3', { authorization: `Bearer ${TOKEN}` }, TOKEN)).toBe(true);
    expect(isInternalCaller('10.1.2.3', { 'x-forwarded-for': '1.1.1.1', authorization: `Bearer ${TOKEN}` }, TOKEN)).toBe(true);
    expect(isInternalCaller('10.1.2.3', { authorization: `Bearer ${TOKEN}x` }, TOKEN)).toBe(false);
    expect(isInternalCaller('10.1.2.3', { authorization: `Bearer ${TOKEN.slice(1)}` }, TOKEN)).toBe(false);
    expect(isInternalCaller('10.1.2.3', { authorization: TOKEN }, TOKEN)).toBe(false);
  });

  it('never takes a token when none is configured', () => {
    expect(isInternalCaller('10.1.2.3', { authorization: 'Bearer ' }, undefined)).toBe(false);
    expect(isInternalCaller('10.1.2.3', { authorization: 'Bearer ' }, '')).toBe(false);
  });
});
