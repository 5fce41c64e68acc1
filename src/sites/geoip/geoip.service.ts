import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Reader, type Response } from 'maxmind';

import { AppConfig } from '../../config/app-config';

/**
 * The visitor's country for `_redirects` rules with `Country=` (issue 34), from an
 * operator-provided MaxMind-format database (GEOIP_DATABASE). The file is read once,
 * at start-up, into memory: a lookup is a walk of the in-memory tree, synchronous, so
 * the router's hot path never waits on it. A file that cannot be read or is no MaxMind
 * database stops the app with a message naming it, rather than serving every
 * `Country=` rule as "never matches" without anyone noticing.
 */
@Injectable()
export class GeoIp {
  private readonly logger = new Logger(GeoIp.name);
  private readonly reader: Reader<Response> | null;

  constructor(config: AppConfig) {
    this.reader = config.GEOIP_DATABASE ? openDatabase(config.GEOIP_DATABASE) : null;
    if (this.reader) {
      const { databaseType, buildEpoch } = this.reader.metadata;
      this.logger.log(`GeoIP database ${config.GEOIP_DATABASE}: ${databaseType}, built ${buildEpoch.toISOString().slice(0, 10)}`);
    }
  }

  /** Whether a database is configured: without one no request has a country. */
  get available(): boolean {
    return this.reader !== null;
  }

  /** ISO 3166-1 alpha-2 code (upper case) of `ip`'s country; null when unknown, not an address, or no database. */
  country(ip: string): string | null {
    if (!this.reader) return null;
    // Dual-stack sockets report IPv4 clients as ::ffff:a.b.c.d; databases file them under a.b.c.d.
    const address = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
    if (isIP(address) === 0) return null;
    try {
      return countryOf(this.reader.get(address));
    } catch {
      // An IPv6 address asked of an IPv4-only database.
      return null;
    }
  }
}

/** Reads and checks the database file; throws a start-up error naming it. */
export function openDatabase(path: string): Reader<Response> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new Error(`Invalid configuration:\n  GEOIP_DATABASE ${path} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  try {
    // Decoded records by data offset: a country database holds a few hundred distinct ones.
    const reader = new Reader<Response>(bytes, { cache: new LRUCache<string | number, object>({ max: 4096 }) });
    const { nodeCount, ipVersion } = reader.metadata;
    if (!Number.isInteger(nodeCount) || (ipVersion !== 4 && ipVersion !== 6)) throw new Error('its metadata names no search tree');
    return reader;
  } catch (err) {
    throw new Error(`Invalid configuration:\n  GEOIP_DATABASE ${path} is not a MaxMind DB (.mmdb) file: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The country code of a database record. MaxMind's GeoIP2/GeoLite2 and DB-IP's files
 * hold `country.iso_code` (where the address is used, which is what a visitor's
 * country means); IPinfo's free files a `country` string, and ip-location-db's a
 * `country_code`. `registered_country` (where the block is registered) is not used:
 * for anycast and mobile networks it names the wrong country.
 */
export function countryOf(record: unknown): string | null {
  if (typeof record !== 'object' || record === null) return null;
  const r = record as { country?: unknown; country_code?: unknown };
  const code =
    typeof r.country === 'object' && r.country !== null
      ? (r.country as { iso_code?: unknown }).iso_code
      : typeof r.country === 'string'
        ? r.country
        : r.country_code;
  if (typeof code !== 'string' || !/^[A-Za-z]{2}$/.test(code)) return null;
  return code.toUpperCase();
}
