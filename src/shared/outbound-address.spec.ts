import { addressRefusal, isPublicAddress } from './outbound-address';

describe('outbound address policy', () => {
  it.each(['8.8.8.8', '140.82.121.3', '2606:4700::1', '2606:50c0:8000::153', '::ffff:8.8.8.8'])('takes the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['127.0.0.1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.0.1', /private/],
    ['169.254.169.254', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['ff02::1', /multicast/],
    ['fc00::1', /unique-local/],
    ['fd00::1', /unique-local/],
    ['192.0.2.1', /reserved/],
    ['64:ff9b::7f00:1', /NAT64/],
    ['64:ff9b:1::a00:1', /NAT64/],
    ['2002:7f00:1::', /6to4/],
    ['2001::1', /Teredo/],
    ['::7f00:1', /IPv4-compatible/],
    ['::a00:1', /IPv4-compatible/],
    ['nope', /not an address/],
  ])('refuses %s', (address, why) => {
    expect(addressRefusal(address)).toMatch(why);
    expect(isPublicAddress(address)).toBe(false);
  });
});
