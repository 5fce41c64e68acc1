import { isIPv4, isIPv6 } from 'node:net';

/**
 * A tiny MaxMind DB (`.mmdb`) writer for tests, following the MaxMind DB File Format
 * Specification 2.0 (https://maxmind.github.io/MaxMind-DB/): an IPv6 search tree of
 * 24-bit records (IPv4 networks live under `::/96`, where readers look them up), a
 * 16-byte separator, a data section, and the metadata map after
 * `\xAB\xCD\xEFMaxMind.com`. npm has no maintained writer; what `maxmind` (mmdb-lib)
 * reads back from these is what the app reads from a real GeoLite2/GeoIP2 database.
 *
 * Values: strings, non-negative integers (uint32), booleans, arrays and plain objects.
 */
export type MmdbValue = string | number | boolean | MmdbValue[] | { [key: string]: MmdbValue };

export interface MmdbNetwork {
  /** CIDR, IPv4 (`81.2.69.0/24`) or IPv6 (`2a02:8000::/24`). */
  network: string;
  data: MmdbValue;
}

/** A GeoIP2-Country-shaped record, as MaxMind's databases hold them. */
export const countryRecord = (isoCode: string): MmdbValue => ({
  country: { iso_code: isoCode, names: { en: isoCode } },
  registered_country: { iso_code: isoCode },
});

interface TrieNode {
  children: [TrieNode | number | null, TrieNode | number | null];
}

export function writeMmdb(networks: MmdbNetwork[], databaseType = 'Test-Country'): Buffer {
  const data: Buffer[] = [];
  let dataLength = 0;
  const root: TrieNode = { children: [null, null] };
  for (const { network, data: value } of networks) {
    const bits = networkBits(network);
    const encoded = encode(value);
    const offset = dataLength;
    data.push(encoded);
    dataLength += encoded.length;
    let node = root;
    for (let i = 0; i < bits.length - 1; i++) {
      const next = node.children[bits[i]];
      if (next === null) node = node.children[bits[i]] = { children: [null, null] };
      else if (typeof next === 'number') throw new Error(`${network} lies inside an earlier network`);
      else node = next;
    }
    node.children[bits[bits.length - 1]] = -1 - offset; // a data offset, resolved below
  }

  // Number the nodes breadth-first; records then point at node numbers or data.
  const order: TrieNode[] = [];
  const numbers = new Map<TrieNode, number>();
  for (let queue = [root]; queue.length > 0;) {
    const node = queue.shift()!;
    numbers.set(node, order.length);
    order.push(node);
    for (const child of node.children) if (child !== null && typeof child !== 'number') queue.push(child);
  }
  const nodeCount = order.length;
  if (nodeCount + 16 + dataLength >= 2 ** 24) throw new Error('too large for 24-bit records');
  const tree = Buffer.alloc(nodeCount * 6);
  order.forEach((node, n) => {
    node.children.forEach((child, side) => {
      const record =
        child === null
          ? nodeCount // "no data"
          : typeof child === 'number'
            ? nodeCount + 16 + (-1 - child)
            : numbers.get(child)!;
      tree.writeUIntBE(record, n * 6 + side * 3, 3);
    });
  });

  const metadata = encode({
    node_count: nodeCount,
    record_size: 24,
    ip_version: 6,
    database_type: databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: Math.floor(Date.now() / 1000),
    description: { en: 'statichost test database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}

/** The network's prefix as bits of an IPv6 address (IPv4 as `::a.b.c.d`). */
function networkBits(cidr: string): number[] {
  const [address, lengthText] = cidr.split('/');
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) throw new Error(`not an IP network: ${cidr}`);
  const bytes = v4 ? [...Array(12).fill(0), ...address.split('.').map(Number)] : ipv6Bytes(address);
  const length = Number(lengthText ?? (v4 ? 32 : 128)) + (v4 ? 96 : 0);
  const bits: number[] = [];
  for (let i = 0; i < length; i++) bits.push((bytes[i >> 3] >> (7 - (i & 7))) & 1);
  return bits;
}

function ipv6Bytes(address: string): number[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

// Data section types (spec, "Output Data Section").
const STRING = 2;
const UINT32 = 6;
const MAP = 7;
const ARRAY = 11;
const BOOLEAN = 14;

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(STRING, bytes.length), bytes]);
  }
  if (typeof value === 'boolean') return control(BOOLEAN, value ? 1 : 0);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** 32) throw new Error(`only uint32 numbers are written, got ${value}`);
    const bytes: number[] = [];
    for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
    return Buffer.concat([control(UINT32, bytes.length), Buffer.from(bytes)]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(ARRAY, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(MAP, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

/** Control byte(s): type in the top 3 bits (extended types after it), then the size. */
function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const bytes: number[] = [];
  let sizeBits: number;
  const sizeBytes: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 29 + 256) {
    sizeBits = 29;
    sizeBytes.push(size - 29);
  } else if (size < 285 + 65536) {
    sizeBits = 30;
    sizeBytes.push((size - 285) >> 8, (size - 285) & 0xff);
  } else throw new Error('value too large for this writer');
  bytes.push(((extended ? 0 : type) << 5) | sizeBits);
  if (extended) bytes.push(type - 7);
  return Buffer.from([...bytes, ...sizeBytes]);
}
