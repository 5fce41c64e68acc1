import fc from 'fast-check';

import { addressKey, addressPrefix, ipv6Groups } from './address-prefix';

describe('addressPrefix', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['10.1.2.3', '10.1.2.0/24'],
    ['2001:db8:abcd:12:34::1', '2001:db8:abcd::/48'],
    ['2001:0db8:abcd:ffff:ffff:ffff:ffff:ffff', '2001:db8:abcd::/48'],
    ['::1', '::/48'],
    ['0:0:1:2:3:4:5:6', '0:0:1::/48'],
    ['fe80::1%eth0', 'fe80::/48'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
  ])('%s is kept as %s', (address, prefix) => {
    expect(addressPrefix(address)).toBe(prefix);
  });

  it('never echoes what is not an address', () => {
    for (const junk of [undefined, '', 'unknown', 'anything-i-like', '0x7f.1', '1.2.3', '203.0.113.77/24', '[::1]'])
      expect(addressPrefix(junk)).toBe('unknown');
  });

  it('keeps no bit past the prefix', () => {
    fc.assert(
      fc.property(fc.ipV4(), (a) => {
        const prefix = addressPrefix(a);
        expect(prefix).toBe(`${a.split('.').slice(0, 3).join('.')}.0/24`);
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (a) => {
        const prefix = addressPrefix(a);
        const groups = ipv6Groups(a);
        if (groups.slice(0, 6).join() === '0,0,0,0,0,65535') return expect(prefix).toBe(`${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.0/24`);
        // The first three groups and nothing after, in canonical text.
        const [head, tail] = prefix.split('::/');
        expect(tail).toBe('48');
        expect(ipv6Groups(`${head}::`)).toEqual([...groups.slice(0, 3), 0, 0, 0, 0, 0]);
        expect(prefix).not.toMatch(/[A-F]|(^|:)0[0-9a-f]/);
      }),
    );
  });
});

describe('addressKey', () => {
  it('counts an IPv4 client by its address, mapped or not', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 client by its /64, however the address is written', () => {
    const key = '2001:db8:1:2::/64';
    expect(addressKey('2001:db8:1:2::1')).toBe(key);
    expect(addressKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe(key);
    expect(addressKey('2001:DB8:1:2:0:0:0:9')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });
});
