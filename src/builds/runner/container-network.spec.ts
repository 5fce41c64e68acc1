import { BUILD_SUBNET, FIREWALL_CHAIN, firewallRules, networkAddress, parseNameservers } from './container-network';

describe('build network firewall', () => {
  it('reads IPv4 resolvers from resolv.conf, leaving out loopback stubs', () => {
    expect(parseNameservers('# comment\nnameserver 127.0.0.53\nnameserver 10.255.255.53\nnameserver  1.1.1.1 \nnameserver ::1\nsearch x\n')).toEqual([
      '10.255.255.53',
      '1.1.1.1',
    ]);
  });

  it('allows DNS to the resolvers only, then drops the host itself, private, link-local and the host networks', () => {
    const rules = firewallRules({ nameservers: ['10.255.255.53'], hostSubnets: ['192.0.2.0/24', '10.0.0.0/8'] }).split('\n');
    expect(rules.slice(0, 3)).toEqual(['*raw', `:${FIREWALL_CHAIN} - [0:0]`, `-F ${FIREWALL_CHAIN}`]);
    expect(rules).toContain(`-A ${FIREWALL_CHAIN} -d 10.255.255.53/32 -p udp -m udp --dport 53 -j RETURN`);
    const firstDrop = rules.findIndex((r) => r.endsWith('-j DROP'));
    expect(rules.findIndex((r) => r.includes('--dport 53'))).toBeLessThan(firstDrop);
    for (const range of ['169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '100.64.0.0/10', '192.0.2.0/24']) {
      expect(rules).toContain(`-A ${FIREWALL_CHAIN} -d ${range} -j DROP`);
    }
    expect(rules).toContain(`-A ${FIREWALL_CHAIN} -m addrtype --dst-type LOCAL -j DROP`);
    expect(rules.filter((r) => r === `-A ${FIREWALL_CHAIN} -d 10.0.0.0/8 -j DROP`)).toHaveLength(1);
    expect(rules.at(-2)).toBe('COMMIT');
    expect(BUILD_SUBNET).toMatch(/^10\./);
  });

  it('networkAddress', () => {
    expect(networkAddress('192.0.2.7/24')).toBe('192.0.2.0/24');
    expect(networkAddress('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(networkAddress('203.0.113.80/32')).toBe('203.0.113.80/32');
    expect(networkAddress('172.31.255.1/12')).toBe('172.16.0.0/12');
  });
});
