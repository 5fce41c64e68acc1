import { Injectable } from '@nestjs/common';

import { PeriodicJob } from '../../common/periodic-job';
import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { SiteCache } from '../site-cache.service';
import { inRuns, warmHostOf } from './warm-hosts';
import { WarmListRepository } from './warm-list.repository';

/** How often an instance writes what it served most recently. */
const LIST_INTERVAL_SECONDS = 60;
/**
 * Hosts loaded at once during the warm start (two of SiteCache's batches of 32): the next
 * run waits for this one, so a visitor's cold host queues behind one run at most.
 */
const RUN = 64;

export interface WarmListReport {
  /** Hosts written to the list this round (0 when it had not changed since the last). */
  hosts: number;
}

export interface WarmStartReport {
  /** Hosts the list held. */
  listed: number;
  /** Of those, hosts that are still a site (now cached). */
  sites: number;
  /** Loads that failed (the site is then loaded on its first request, as without the list). */
  failed: number;
  ms: number;
}

const NOTHING_WARMED: WarmStartReport = { listed: 0, sites: 0, failed: 0, ms: 0 };

/**
 * The warm start (issue 35): after a restart, every site's first visitor paid a cold load
 * (a row and a manifest from PostgreSQL) in the same seconds as everyone else's. Each
 * instance keeps its most recently served hosts in `site_warm_list` (SITE_WARM_START_HOSTS
 * of them, from the site cache's own LRU order: nothing on the request path), about once a
 * minute and when it stops; a starting instance loads that list in the background, most
 * recent first, in runs that leave room for its first visitors' own loads.
 */
@Injectable()
export class SiteWarmStart extends PeriodicJob<WarmListReport> {
  /** The start-up load: resolves when it has ended (tests and the log read it). */
  warmed: Promise<WarmStartReport> = Promise.resolve(NOTHING_WARMED);
  private stopping = false;
  /** The keys of the last list written, joined: an unchanged one is not written again. */
  private lastWritten = '';

  constructor(
    private readonly config: AppConfig,
    private readonly sites: SiteCache,
    private readonly list: WarmListRepository,
    private readonly clock: Clock,
  ) {
    super(SiteWarmStart.name, config.SITE_WARM_START_HOSTS > 0 ? LIST_INTERVAL_SECONDS : 0);
  }

  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    if (this.config.SITE_WARM_START_HOSTS <= 0) return;
    this.warmed = this.warmUp().catch((err) => {
      // Nothing is lost: each site loads on its first request, as without the list.
      this.logger.warn(`warm start skipped: ${(err as Error).message}`);
      return NOTHING_WARMED;
    });
  }

  /** Ends the warm start after its current run, then writes the list a last time: what this instance served last is what a restart should load first. */
  override async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.warmed;
    await super.onModuleDestroy();
    if (this.config.SITE_WARM_START_HOSTS <= 0) return;
    await this.trigger().catch((err) => this.logger.warn(`warm-start list not written at shutdown: ${(err as Error).message}`));
  }

  /** Writes the list now (tests; the timer does it every minute). */
  async runOnce(): Promise<WarmListReport> {
    return (await this.trigger()) ?? { hosts: 0 };
  }

  protected async work(): Promise<WarmListReport> {
    const limit = this.config.SITE_WARM_START_HOSTS;
    const keys = this.sites.recentHosts(limit);
    // An idle instance's list does not change: rewriting it every minute would only leave dead rows.
    const written = keys.join('\n');
    if (keys.length === 0 || written === this.lastWritten) return { hosts: 0 };
    await this.list.record(keys, this.clock.now(), limit);
    this.lastWritten = written;
    return { hosts: keys.length };
  }

  private async warmUp(): Promise<WarmStartReport> {
    const started = performance.now();
    const keys = await this.list.recent(this.config.SITE_WARM_START_HOSTS);
    const hosts = keys.map(warmHostOf).filter((h) => h !== null);
    let sites = 0;
    let failed = 0;
    for (const run of inRuns(hosts, RUN)) {
      if (this.stopping) break;
      const loaded = await Promise.allSettled(run.map((h) => (h.kind === 's' ? this.sites.bySlug(h.name) : this.sites.byDomain(h.name))));
      for (const result of loaded) {
        if (result.status === 'rejected') failed++;
        else if (result.value !== null) sites++;
      }
    }
    const report: WarmStartReport = { listed: keys.length, sites, failed, ms: Math.round(performance.now() - started) };
    if (keys.length > 0)
      this.logger.log(`warm start: ${sites} of ${keys.length} recently served sites loaded in ${report.ms} ms${failed ? ` (${failed} failed)` : ''}`);
    return report;
  }
}
