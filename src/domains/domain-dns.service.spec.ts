import { AppConfig } from '../config/app-config';
import { validateEnv } from '../config/env.schema';
import { classifyDnsError } from './domain-dns.service';

describe('classifyDnsError', () => {
  it('reads NXDOMAIN and no-data as an empty answer', () => {
    expect(classifyDnsError('ENOTFOUND')).toEqual({ kind: 'answer', values: [] });
    expect(classifyDnsError('ENODATA')).toEqual({ kind: 'answer', values: [] });
  });
  it('reads SERVFAIL as the domain’s DNS being broken', () => {
    expect(classifyDnsError('ESERVFAIL')).toEqual({ kind: 'broken', code: 'ESERVFAIL' });
  });
  it('reads time-outs, cancels and refusals as our resolvers not answering', () => {
    expect(classifyDnsError('ETIMEOUT')).toEqual({ kind: 'unreachable', code: 'ETIMEOUT', timedOut: true });
    expect(classifyDnsError('ECANCELLED')).toEqual({ kind: 'unreachable', code: 'ECANCELLED', timedOut: true });
    expect(classifyDnsError('ECONNREFUSED')).toEqual({ kind: 'unreachable', code: 'ECONNREFUSED', timedOut: false });
    expect(classifyDnsError(undefined)).toEqual({ kind: 'unreachable', code: 'EUNKNOWN', timedOut: false });
  });
});

describe('DNS_SERVERS', () => {
  it('accepts IPs with optional ports', () => {
    const value = '1.1.1.1,127.0.0.1:5353,[::1]:53,2001:db8::1,[2001:db8::2]';
    expect(validateEnv({ DNS_SERVERS: value }).DNS_SERVERS).toBe(value);
    expect(AppConfig.from(validateEnv({ DNS_SERVERS: value })).dnsServers).toEqual(['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '2001:db8::1', '[2001:db8::2]']);
    expect(AppConfig.from(validateEnv({})).dnsServers).toEqual([]);
  });
  it('refuses host names and junk, naming the variable', () => {
    for (const bad of ['dns.google', '1.1.1.1;rm', '1.1.1.1,,8.8.8.8', 'http://1.1.1.1']) {
      expect(() => validateEnv({ DNS_SERVERS: bad })).toThrow(/DNS_SERVERS/);
    }
  });
  it('bounds DNS_TIMEOUT_MS', () => {
    expect(validateEnv({}).DNS_TIMEOUT_MS).toBe(5000);
    expect(() => validateEnv({ DNS_TIMEOUT_MS: '0' })).toThrow(/DNS_TIMEOUT_MS/);
  });
});
