import { readFileSync } from 'node:fs';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import {
  DEFAULT_PLANS,
  DEFAULT_PRICES,
  effectiveLimits,
  Interval,
  InvalidPlansError,
  parsePlanOverrides,
  parsePriceOverrides,
  PlanLimits,
  PlanTable,
  Price,
  PriceTable,
  Tier,
} from './plans';

/** Loads the plan table once at start-up; a bad override stops the app with a message naming the variable. */
export function loadPlanTable(config: Pick<AppConfig, 'PLANS_FILE' | 'PLANS_JSON'>): PlanTable {
  return fromOverrides(config, DEFAULT_PLANS, parsePlanOverrides);
}

/** The paid tiers' prices: the defaults with the `prices` of PLANS_JSON / PLANS_FILE applied. */
export function loadPriceTable(config: Pick<AppConfig, 'PLANS_FILE' | 'PLANS_JSON'>): PriceTable {
  return fromOverrides(config, DEFAULT_PRICES, parsePriceOverrides);
}

function fromOverrides<T>(config: Pick<AppConfig, 'PLANS_FILE' | 'PLANS_JSON'>, defaults: T, parse: (text: string, source: string) => T): T {
  try {
    if (config.PLANS_FILE && config.PLANS_JSON) throw new InvalidPlansError('PLANS_FILE and PLANS_JSON are both set; set one of them');
    if (config.PLANS_JSON) return parse(config.PLANS_JSON, 'PLANS_JSON');
    if (config.PLANS_FILE) {
      let text: string;
      try {
        text = readFileSync(config.PLANS_FILE, 'utf8');
      } catch (err) {
        throw new InvalidPlansError(`PLANS_FILE ${config.PLANS_FILE} cannot be read: ${(err as Error).message}`);
      }
      return parse(text, `PLANS_FILE ${config.PLANS_FILE}`);
    }
    return defaults;
  } catch (err) {
    if (err instanceof InvalidPlansError) throw new Error(`Invalid configuration:\n  ${err.message}`, { cause: err });
    throw err;
  }
}

export type Limits = PlanLimits & { maxFileBytes: number };

@Injectable()
export class PlansService {
  readonly table: PlanTable;
  readonly prices: PriceTable;

  constructor(private readonly config: AppConfig) {
    this.table = loadPlanTable(config);
    this.prices = loadPriceTable(config);
  }

  /** A tier's limits on this platform (the file limit never above MAX_FILE_BYTES). */
  limits(tier: Tier): Limits {
    return effectiveLimits(this.table[tier], this.config.MAX_FILE_BYTES);
  }

  /** A tier's prices per interval; null for free. */
  pricesOf(tier: Tier): Record<Interval, Price> | null {
    return tier === 'free' ? null : this.prices[tier];
  }
}
