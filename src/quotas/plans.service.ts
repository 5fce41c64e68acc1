import { readFileSync } from 'node:fs';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { DEFAULT_PLANS, effectiveLimits, InvalidPlansError, parsePlanOverrides, PlanLimits, PlanTable, Tier } from './plans';

/** Loads the plan table once at start-up; a bad override stops the app with a message naming the variable. */
export function loadPlanTable(config: Pick<AppConfig, 'PLANS_FILE' | 'PLANS_JSON'>): PlanTable {
  try {
    if (config.PLANS_FILE && config.PLANS_JSON) throw new InvalidPlansError('PLANS_FILE and PLANS_JSON are both set; set one of them');
    if (config.PLANS_JSON) return parsePlanOverrides(config.PLANS_JSON, 'PLANS_JSON');
    if (config.PLANS_FILE) {
      let text: string;
      try {
        text = readFileSync(config.PLANS_FILE, 'utf8');
      } catch (err) {
        throw new InvalidPlansError(`PLANS_FILE ${config.PLANS_FILE} cannot be read: ${(err as Error).message}`);
      }
      return parsePlanOverrides(text, `PLANS_FILE ${config.PLANS_FILE}`);
    }
    return DEFAULT_PLANS;
  } catch (err) {
    if (err instanceof InvalidPlansError) throw new Error(`Invalid configuration:\n  ${err.message}`, { cause: err });
    throw err;
  }
}

export type Limits = PlanLimits & { maxFileBytes: number };

@Injectable()
export class PlansService {
  readonly table: PlanTable;

  constructor(private readonly config: AppConfig) {
    this.table = loadPlanTable(config);
  }

  /** A tier's limits on this platform (the file limit never above MAX_FILE_BYTES). */
  limits(tier: Tier): Limits {
    return effectiveLimits(this.table[tier], this.config.MAX_FILE_BYTES);
  }
}
