import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { countryRecord, writeMmdb } from '../../../test/helpers/mmdb';
import { useTempDir } from '../../../test/helpers/temp-dir';
import { AppConfig } from '../../config/app-config';
import { countryOf, GeoIp } from './geoip.service';

const geoIp = (GEOIP_DATABASE?: string) => new GeoIp(Object.assign(new AppConfig(), { GEOIP_DATABASE }));

describe('GeoIp', () => {
  const dir = useTempDir('statichost-geoip-');
  const database = () => {
    const path = join(dir(), 'country.mmdb');
    writeFileSync(
      path,
      writeMmdb([
        { network: '81.2.69.0/24', data: countryRecord('GB') },
        { network: '203.0.113.0/24', data: countryRecord('fr') },
        { network: '2a02:8000::/24', data: countryRecord('DE') },
        { network: '198.51.100.0/24', data: { registered_country: { iso_code: 'US' } } },
      ]),
    );
    return path;
  };

  it('looks up the country of IPv4, IPv4-mapped IPv6 and IPv6 addresses in a MaxMind DB file', () => {
    const geo = geoIp(database());
    expect(geo.available).toBe(true);
    expect(geo.country('81.2.69.142')).toBe('GB');
    expect(geo.country('::ffff:81.2.69.142')).toBe('GB');
    expect(geo.country('203.0.113.9')).toBe('FR');
    expect(geo.country('2a02:80ab::1')).toBe('DE');
  });

  it('answers null for addresses it does not know, registered-country-only records and non-addresses', () => {
    const geo = geoIp(database());
    expect(geo.country('192.0.2.1')).toBeNull();
    expect(geo.country('::1')).toBeNull();
    expect(geo.country('198.51.100.7')).toBeNull();
    expect(geo.country('unknown')).toBeNull();
  });

  it('is unavailable without GEOIP_DATABASE: no request has a country', () => {
    const geo = geoIp(undefined);
    expect(geo.available).toBe(false);
    expect(geo.country('81.2.69.142')).toBeNull();
  });

  it('stops start-up with a message naming a file that is missing or is no MaxMind database', () => {
    expect(() => geoIp(join(dir(), 'missing.mmdb'))).toThrow(/^Invalid configuration:\n {2}GEOIP_DATABASE \S+missing\.mmdb cannot be read: ENOENT/);
    const junk = join(dir(), 'junk.mmdb');
    writeFileSync(junk, 'not a database at all');
    expect(() => geoIp(junk)).toThrow(/^Invalid configuration:\n {2}GEOIP_DATABASE \S+junk\.mmdb is not a MaxMind DB \(\.mmdb\) file/);
  });
});

describe('countryOf', () => {
  it('reads GeoIP2/DB-IP, IPinfo and ip-location-db records', () => {
    expect(countryOf({ country: { iso_code: 'NZ' } })).toBe('NZ');
    expect(countryOf({ country: 'nz' })).toBe('NZ');
    expect(countryOf({ country_code: 'NZ' })).toBe('NZ');
  });

  it('answers null for anything else', () => {
    expect(countryOf(null)).toBeNull();
    expect(countryOf({ continent: { code: 'EU' } })).toBeNull();
    expect(countryOf({ country: { iso_code: 'NZL' } })).toBeNull();
    expect(countryOf({ country: { iso_code: 1 } })).toBeNull();
  });
});
