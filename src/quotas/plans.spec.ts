import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  applyPlanOverrides,
  DEFAULT_PLANS,
  DEFAULT_PRICES,
  effectiveLimits,
  InvalidPlansError,
  parseBytes,
  parsePlanOverrides,
  parsePriceOverrides,
} from './plans';
import { loadPlanTable, loadPriceTable } from './plans.service';

const MiB = 1024 * 1024;

describe('the plan table', () => {
  it('is the issue’s table by default', () => {
    expect(DEFAULT_PLANS).toEqual({
      free: {
        projects: 3,
        deploymentsPerMonth: 10,
        storageBytes: 500 * MiB,
        maxFileBytes: 10 * MiB,
        maxTtl: '7d',
        concurrentBuilds: 1,
        buildMinutesPerMonth: 300,
        bandwidthBytesPerMonth: 100 * 1024 * MiB,
      },
      pro: {
        projects: 20,
        deploymentsPerMonth: 100,
        storageBytes: 5 * 1024 * MiB,
        maxFileBytes: 100 * MiB,
        maxTtl: null,
        concurrentBuilds: 3,
        buildMinutesPerMonth: 1000,
        bandwidthBytesPerMonth: 1024 * 1024 * MiB,
      },
      team: {
        projects: null,
        deploymentsPerMonth: null,
        storageBytes: 50 * 1024 * MiB,
        maxFileBytes: 100 * MiB,
        maxTtl: null,
        concurrentBuilds: 10,
        buildMinutesPerMonth: 5000,
        bandwidthBytesPerMonth: 5 * 1024 * 1024 * MiB,
      },
    });
  });

  it('takes the build limits as counts', () => {
    const table = parsePlanOverrides('{"pro": {"concurrentBuilds": 5, "buildMinutesPerMonth": null}}', 'PLANS_JSON');
    expect(table.pro).toMatchObject({ concurrentBuilds: 5, buildMinutesPerMonth: null });
    expect(() => parsePlanOverrides('{"free": {"concurrentBuilds": -1}}', 'PLANS_JSON')).toThrow('free.concurrentBuilds must be a whole number');
  });

  it('takes the monthly bandwidth as a size, like storage (issue 31)', () => {
    const table = parsePlanOverrides(
      '{"free": {"bandwidthBytesPerMonth": "100 GB"}, "pro": {"bandwidthBytesPerMonth": 5}, "team": {"bandwidthBytesPerMonth": null}}',
      'PLANS_JSON',
    );
    expect([table.free.bandwidthBytesPerMonth, table.pro.bandwidthBytesPerMonth, table.team.bandwidthBytesPerMonth]).toEqual([100 * 1024 * MiB, 5, null]);
    expect(() => parsePlanOverrides('{"free": {"bandwidthBytesPerMonth": "lots"}}', 'PLANS_JSON')).toThrow(
      'free.bandwidthBytesPerMonth must be a whole number of bytes',
    );
  });

  it('takes overrides cell by cell and leaves the rest alone', () => {
    const table = parsePlanOverrides('{"free": {"projects": 5, "storageBytes": "1 GB", "maxTtl": "30d"}, "team": {"storageBytes": null}}', 'PLANS_JSON');
    expect(table.free).toEqual({ ...DEFAULT_PLANS.free, projects: 5, storageBytes: 1024 * MiB, maxTtl: '30d' });
    expect(table.team.storageBytes).toBeNull();
    expect(table.pro).toEqual(DEFAULT_PLANS.pro);
    // The defaults themselves are never mutated.
    expect(DEFAULT_PLANS.free.projects).toBe(3);
  });

  it('treats a maximum ttl of "forever" as no maximum', () => {
    expect(applyPlanOverrides(DEFAULT_PLANS, { free: { maxTtl: 'forever' } }, 'X').free.maxTtl).toBeNull();
  });

  it.each([
    ['{"gold": {}}', 'unknown tier "gold"'],
    ['{"free": {"project": 5}}', 'free.project is not a limit'],
    ['{"free": {"projects": -1}}', 'free.projects must be a whole number'],
    ['{"free": {"projects": 2.5}}', 'free.projects must be a whole number'],
    ['{"free": {"storageBytes": "lots"}}', 'free.storageBytes must be a whole number of bytes'],
    ['{"free": {"maxFileBytes": 0}}', 'free.maxFileBytes must be at least 1 byte'],
    ['{"free": {"maxTtl": "a week"}}', 'free.maxTtl must be'],
    ['{"free": 3}', 'free must be an object'],
    ['[]', 'must be a JSON object keyed by tier'],
    ['{free: 1}', 'is not valid JSON'],
  ])('refuses %s naming what is wrong', (json, message) => {
    expect(() => parsePlanOverrides(json, 'PLANS_JSON')).toThrow(InvalidPlansError);
    expect(() => parsePlanOverrides(json, 'PLANS_JSON')).toThrow(message);
  });

  it('reads sizes in binary units', () => {
    expect(parseBytes('500 MB', 'x')).toBe(500 * MiB);
    expect(parseBytes('1.5gb', 'x')).toBe(1.5 * 1024 * MiB);
    expect(parseBytes('10 KB', 'x')).toBe(10240);
    expect(parseBytes(42, 'x')).toBe(42);
    expect(() => parseBytes('5 PB', 'x')).toThrow(InvalidPlansError);
  });

  it('never lets a plan’s file limit exceed the platform ceiling', () => {
    expect(effectiveLimits(DEFAULT_PLANS.pro, 64 * 1024).maxFileBytes).toBe(64 * 1024);
    expect(effectiveLimits(DEFAULT_PLANS.free, 100 * MiB).maxFileBytes).toBe(10 * MiB);
    expect(effectiveLimits({ ...DEFAULT_PLANS.free, maxFileBytes: null }, 123).maxFileBytes).toBe(123);
  });
});

describe('loadPlanTable', () => {
  it('reads PLANS_FILE, or PLANS_JSON, or nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plans-'));
    const file = join(dir, 'plans.json');
    writeFileSync(file, '{"pro": {"projects": 50}}');
    expect(loadPlanTable({ PLANS_FILE: file }).pro.projects).toBe(50);
    expect(loadPlanTable({ PLANS_JSON: '{"pro": {"projects": 7}}' }).pro.projects).toBe(7);
    expect(loadPlanTable({})).toBe(DEFAULT_PLANS);
  });

  it('stops start-up with a message naming the variable', () => {
    expect(() => loadPlanTable({ PLANS_FILE: '/nonexistent/plans.json' })).toThrow(
      /^Invalid configuration:\n {2}PLANS_FILE \/nonexistent\/plans.json cannot be read/,
    );
    expect(() => loadPlanTable({ PLANS_JSON: '{"free": {"projects": "many"}}' })).toThrow('PLANS_JSON: free.projects must be a whole number');
    expect(() => loadPlanTable({ PLANS_JSON: '{}', PLANS_FILE: '/x' })).toThrow('PLANS_FILE and PLANS_JSON are both set');
  });
});

describe('the prices of the paid tiers', () => {
  it('are the issue’s by default: pro $19 a month or $190 a year, team $99 or $990, in cents', () => {
    expect(DEFAULT_PRICES).toEqual({
      pro: { month: { amount: 1900, currency: 'usd' }, year: { amount: 19000, currency: 'usd' } },
      team: { month: { amount: 9900, currency: 'usd' }, year: { amount: 99000, currency: 'usd' } },
    });
  });

  it('take overrides interval by interval beside the limits, the currency lower-cased', () => {
    const json = '{"pro": {"projects": 50, "prices": {"year": {"amount": 24000, "currency": "EUR"}}}}';
    expect(parsePriceOverrides(json, 'PLANS_JSON')).toEqual({
      pro: { month: DEFAULT_PRICES.pro.month, year: { amount: 24000, currency: 'eur' } },
      team: DEFAULT_PRICES.team,
    });
    // The limits of the same object are read as before, the prices left to their own parser.
    expect(parsePlanOverrides(json, 'PLANS_JSON').pro).toEqual({ ...DEFAULT_PLANS.pro, projects: 50 });
    expect(DEFAULT_PRICES.pro.year.amount).toBe(19000);
  });

  it.each([
    ['{"free": {"prices": {"month": {"amount": 0, "currency": "usd"}}}}', 'free.prices: only the paid tiers (pro, team) have prices'],
    ['{"pro": {"prices": {"week": {"amount": 500, "currency": "usd"}}}}', 'pro.prices.week is not an interval'],
    ['{"pro": {"prices": {"month": {"amount": 19.5, "currency": "usd"}}}}', 'pro.prices.month.amount must be a whole number'],
    ['{"pro": {"prices": {"month": {"amount": -1, "currency": "usd"}}}}', 'pro.prices.month.amount must be a whole number'],
    ['{"pro": {"prices": {"month": {"amount": 1900}}}}', 'pro.prices.month.currency must be a three-letter ISO 4217 code'],
    ['{"pro": {"prices": {"month": {"amount": 1900, "currency": "dollars"}}}}', 'pro.prices.month.currency must be a three-letter'],
    ['{"pro": {"prices": {"month": {"amount": 1900, "currency": "usd", "price": "price_1"}}}}', 'pro.prices.month.price is not a price field'],
    ['{"pro": {"prices": {"month": "$19"}}}', 'pro.prices.month must be an object'],
    ['{"pro": {"prices": [1900]}}', 'pro.prices must be an object keyed by interval'],
  ])('refuses %s naming what is wrong', (json, message) => {
    expect(() => parsePriceOverrides(json, 'PLANS_JSON')).toThrow(InvalidPlansError);
    expect(() => parsePriceOverrides(json, 'PLANS_JSON')).toThrow(message);
  });

  it('are loaded from PLANS_FILE or PLANS_JSON, and a bad one stops start-up naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const file = join(dir, 'plans.json');
    writeFileSync(file, '{"team": {"prices": {"month": {"amount": 12900, "currency": "usd"}}}}');
    expect(loadPriceTable({ PLANS_FILE: file }).team.month).toEqual({ amount: 12900, currency: 'usd' });
    expect(loadPriceTable({})).toBe(DEFAULT_PRICES);
    expect(() => loadPriceTable({ PLANS_JSON: '{"pro": {"prices": {"month": {"amount": "19"}}}}' })).toThrow(
      /^Invalid configuration:\n {2}PLANS_JSON: pro.prices.month.amount must be a whole number/,
    );
  });
});
