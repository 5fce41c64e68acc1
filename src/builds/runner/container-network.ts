import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The network build containers join (docs/security.md, "Build sandbox network"). Podman's
 * slirp4netns refuses the host's loopback but forwards everything else from the host's own
 * stack: measured here, a container reached 169.254.169.254, the host's LAN address and any
 * 10.x address. So rootful builders put builds on their own bridge network and drop, in the
 * `raw` table's PREROUTING (before routing, so it covers traffic to the host itself and
 * traffic routed on; netavark and docker never touch that table, so their own rule
 * rewrites cannot get ahead of ours), every packet from that subnet to:
 * - any address of the host (`addrtype LOCAL`, kept current by the kernel),
 * - the private, shared, loopback, link-local (the metadata address), multicast and
 *   reserved ranges, and the networks the host's interfaces are on,
 * except DNS (port 53) to the resolvers the container's resolv.conf names.
 * IPv6 is switched off inside build containers (a sysctl in the run arguments).
 */
export const BUILD_NETWORK = 'statichost-builds';
export const BUILD_SUBNET = '10.89.213.0/24';
export const FIREWALL_CHAIN = 'STATICHOST_BUILDS';

export const BLOCKED_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/** IPv4 resolvers in resolv.conf text, loopback ones left out (podman and docker replace those). */
export function parseNameservers(resolvConf: string): string[] {
  const found = new Set<string>();
  for (const line of resolvConf.split('\n')) {
    const match = /^\s*nameserver\s+(\d{1,3}(?:\.\d{1,3}){3})\s*$/.exec(line);
    if (match && !match[1].startsWith('127.')) found.add(match[1]);
  }
  return [...found];
}

/**
 * An `iptables-restore --noflush` input that (re)fills the chain in one commit, so a
 * builder restarting while another one runs a build never leaves a moment without rules.
 */
export function firewallRules(input: { nameservers: string[]; hostSubnets: string[] }): string {
  const lines = ['*raw', `:${FIREWALL_CHAIN} - [0:0]`, `-F ${FIREWALL_CHAIN}`];
  for (const ns of input.nameservers) {
    for (const proto of ['udp', 'tcp']) lines.push(`-A ${FIREWALL_CHAIN} -d ${ns}/32 -p ${proto} -m ${proto} --dport 53 -j RETURN`);
  }
  lines.push(`-A ${FIREWALL_CHAIN} -m addrtype --dst-type LOCAL -j DROP`);
  for (const range of [...new Set([...BLOCKED_RANGES, ...input.hostSubnets])]) lines.push(`-A ${FIREWALL_CHAIN} -d ${range} -j DROP`);
  lines.push('COMMIT', '');
  return lines.join('\n');
}

export function hostSubnets(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal && a.cidr)
    .map((a) => networkAddress(a!.cidr!));
}

/** 192.0.2.7/24 → 192.0.2.0/24 (iptables accepts either; this keeps the rule list readable). */
export function networkAddress(cidr: string): string {
  const [ip, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const value = ip.split('.').reduce((acc, part) => (acc << 8) | Number(part), 0) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  const net = (value & mask) >>> 0;
  return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join('.')}/${bits}`;
}

function readNameservers(): string[] {
  const found = new Set<string>();
  // systemd-resolved's stub (127.0.0.53) is replaced by its upstream list inside containers.
  for (const file of ['/etc/resolv.conf', '/run/systemd/resolve/resolv.conf']) {
    try {
      for (const ns of parseNameservers(readFileSync(file, 'utf8'))) found.add(ns);
    } catch {
      // absent
    }
  }
  return [...found];
}

/**
 * Creates the build network and loads the firewall rules (idempotent). Needs root (iptables)
 * and a rootful engine; the caller falls back, with a warning, when this throws.
 */
export async function ensureBuildNetwork(engine: 'podman' | 'docker', binaryPath: string): Promise<string> {
  if (process.getuid?.() !== 0) throw new Error('the builder does not run as root, so it cannot install the build network firewall');
  const exists = await run(binaryPath, ['network', 'inspect', BUILD_NETWORK]).then(
    () => true,
    () => false,
  );
  if (!exists) {
    const args = ['network', 'create', '--subnet', BUILD_SUBNET];
    // Podman: containers use the host's resolvers (allowed on port 53 below), not an
    // aardvark-dns on the gateway, which is the host and so refused. Docker's embedded DNS
    // answers on the container's own loopback and resolves from the daemon's side.
    if (engine === 'podman') args.push('--disable-dns');
    await run(binaryPath, [...args, BUILD_NETWORK]).catch(async (err: unknown) => {
      // Another builder on this machine created it in between.
      const nowExists = await run(binaryPath, ['network', 'inspect', BUILD_NETWORK]).then(
        () => true,
        () => false,
      );
      if (!nowExists) throw err;
    });
  }
  await new Promise<void>((resolve, reject) => {
    const child = execFile('iptables-restore', ['--noflush'], (err) => (err ? reject(err) : resolve()));
    child.stdin!.end(firewallRules({ nameservers: readNameservers(), hostSubnets: hostSubnets() }));
  });
  const jump = ['-s', BUILD_SUBNET, '-j', FIREWALL_CHAIN];
  const present = await run('iptables', ['-t', 'raw', '-C', 'PREROUTING', ...jump]).then(
    () => true,
    () => false,
  );
  if (!present) await run('iptables', ['-t', 'raw', '-I', 'PREROUTING', '1', ...jump]);
  return BUILD_NETWORK;
}
