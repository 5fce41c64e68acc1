import { Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

import { PeriodicJob } from '../common/periodic-job';
import { AppConfig } from '../config/app-config';
import type { OutboxBacklog } from '../outbox/outbox.repository';
import { OutboxService } from '../outbox/outbox.service';
import { FastCounter, FastHistogram } from './fast-metrics';

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/**
 * `refused` is the caller's doing (a 4xx: quota, invalid files or `_redirects`, a conflict);
 * `failed` is the service's (5xx or an unexpected error), the one to alert on.
 */
export type DeployOutcome = 'ok' | 'refused' | 'failed';

export interface SiteCacheUse {
  budget: number;
  parts: Record<'sites' | 'missing' | 'variants', number>;
  loads: { active: number; waiting: number };
}

/** How old the outbox's queues in /metrics may be, and how long a scrape waits for a fresh read. */
const OUTBOX_READ_EVERY_MS = 5_000;
const OUTBOX_READ_WAIT_MS = 1_000;

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The numbers to watch, in Prometheus text format at /metrics (names in README). One
 * registry per app instance, not prom-client's global one, so two instances in one
 * process (the tests) never mix their counts. Hot-path instruments are resolved to
 * their label children once, so counting a site request is an increment.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap {
  readonly registry = new Registry();
  readonly enabled: boolean;

  private readonly apiRequests = new Counter({
    name: 'statichost_http_requests_total',
    help: 'API requests by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly apiDuration = new Histogram({
    name: 'statichost_http_request_duration_seconds',
    help: 'API request duration by route template and method',
    labelNames: ['route', 'method'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  // The site router's instruments: on every site answer, so the cheap kind (fast-metrics.ts).
  private readonly siteRequests = new FastCounter(
    'statichost_site_requests_total',
    'Site requests by status class',
    'status_class',
    STATUS_CLASSES,
    this.registry,
  );
  private readonly siteDuration = new FastHistogram('statichost_site_request_duration_seconds', 'Site request duration', SECONDS, this.registry);
  readonly fileCacheHits = new FastCounter(
    'statichost_site_file_cache_hits_total',
    'Site files answered from the in-memory cache',
    undefined,
    [],
    this.registry,
  );
  readonly siteManifestLoads = new FastCounter(
    'statichost_site_manifest_loads_total',
    'Deployment manifests read from PostgreSQL by the site router (cold loads)',
    undefined,
    [],
    this.registry,
  );
  readonly fileCacheMisses = new FastCounter('statichost_site_file_cache_misses_total', 'Site files read from the object store', undefined, [], this.registry);
  private readonly deploys = new Counter({
    name: 'statichost_deploys_total',
    help: 'Deploys by outcome (ok; refused: answered 4xx, e.g. a quota or invalid files; failed: 5xx or an unexpected error)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly deployBytes = new Counter({
    name: 'statichost_deploy_bytes_total',
    help: 'Bytes of successful deploys (deployment sizes)',
    registers: [this.registry],
  });
  private readonly deployDuration = new Histogram({
    name: 'statichost_deploy_duration_seconds',
    help: 'Deploy duration, successful or not',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly jobRuns = new Counter({
    name: 'statichost_job_runs_total',
    // Not `job`: Prometheus attaches its own `job` label to every scraped series, and a
    // clash renames ours to `exported_job`, so queries by `job` found nothing.
    help: 'Background job rounds by job_name and outcome (ok, failed, skipped: another instance held the lock)',
    labelNames: ['job_name', 'outcome'],
    registers: [this.registry],
  });
  private readonly connectionsRefused = new Counter({
    name: 'statichost_connections_refused_total',
    help: 'Connections closed as they arrived, by the cap they were over (per_address, total)',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  private fileCacheBytes?: () => number;
  private siteCache?: () => SiteCacheUse;
  private connections?: () => { open: number; reserved: number };
  private readonly logger = new Logger(MetricsService.name);
  private outboxSeen?: { at: number; rows: OutboxBacklog[] };
  private outboxRefresh?: Promise<void>;

  constructor(
    config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly discovery: DiscoveryService,
    // Optional: a test module may build the metrics without the outbox.
    @Optional() private readonly outboxes?: OutboxService,
  ) {
    this.enabled = config.METRICS_ENABLED;
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry, prefix: 'statichost_' });
    const pool = () => (this.dataSource.driver as unknown as { master?: PgPool }).master;
    new Gauge({
      name: 'statichost_db_pool_connections',
      help: 'Database pool connections by state (in_use, idle, waiting: requests queued for a connection)',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const p = pool();
        if (!p) return;
        this.set({ state: 'in_use' }, p.totalCount - p.idleCount);
        this.set({ state: 'idle' }, p.idleCount);
        this.set({ state: 'waiting' }, p.waitingCount);
      },
    });
    const cacheBytes = () => this.fileCacheBytes?.() ?? 0;
    new Gauge({
      name: 'statichost_site_file_cache_bytes',
      help: 'Bytes of site files held in the in-memory cache',
      registers: [this.registry],
      collect() {
        this.set(cacheBytes());
      },
    });
    const siteCache = () => this.siteCache?.();
    new Gauge({
      name: 'statichost_site_cache_bytes',
      help: 'Estimated bytes of the site router cache by part (sites: states with their manifests; missing: unknown hosts; variants: compressed-copy knowledge)',
      labelNames: ['part'],
      registers: [this.registry],
      collect() {
        const use = siteCache();
        if (!use) return;
        for (const [part, bytes] of Object.entries(use.parts)) this.set({ part }, bytes);
      },
    });
    new Gauge({
      name: 'statichost_site_cache_budget_bytes',
      help: 'The site router cache budget (SITE_CACHE_MB or its default)',
      registers: [this.registry],
      collect() {
        const use = siteCache();
        if (use) this.set(use.budget);
      },
    });
    new Gauge({
      name: 'statichost_site_cache_loads',
      help: 'Cold site loads by state (active: reading PostgreSQL; waiting: queued behind the concurrency bound); a batch of slug hosts is one load',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const use = siteCache();
        if (!use) return;
        this.set({ state: 'active' }, use.loads.active);
        this.set({ state: 'waiting' }, use.loads.waiting);
      },
    });
    const outboxNow = () => this.outboxBacklog();
    new Gauge({
      name: 'statichost_outbox_messages',
      help: 'Outbox messages by kind and state (due: a round will send them; waiting: for a retry; dead: given up on, kept 30 days)',
      labelNames: ['kind', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const b of (await outboxNow()) ?? []) {
          this.set({ kind: b.kind, state: 'due' }, b.due);
          this.set({ kind: b.kind, state: 'waiting' }, b.waiting);
          this.set({ kind: b.kind, state: 'dead' }, b.dead);
        }
      },
    });
    new Gauge({
      name: 'statichost_outbox_oldest_due_seconds',
      help: 'Seconds since the oldest due outbox message of each kind came due (0: none due): rising means sends fall behind',
      labelNames: ['kind'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const b of (await outboxNow()) ?? []) this.set({ kind: b.kind }, b.oldestDueSeconds);
      },
    });
    const connections = () => this.connections?.();
    new Gauge({
      name: 'statichost_http_connections',
      help: 'Open client connections: counted against HTTP_MAX_CONNECTIONS, or in the loopback reserve past it',
      labelNames: ['kind'],
      registers: [this.registry],
      collect() {
        const c = connections();
        if (!c) return;
        this.set({ kind: 'counted' }, c.open);
        this.set({ kind: 'reserve' }, c.reserved);
      },
    });
  }

  /**
   * The outbox's queues for a scrape: a read of PostgreSQL at most every OUTBOX_READ_EVERY_MS
   * (every instance and every Prometheus replica scrapes, and with a large backlog the read
   * costs tens of milliseconds), waited for at most OUTBOX_READ_WAIT_MS. A scrape never
   * waits longer on it (the pool's gauges matter most when the database is slow): it gets
   * the last values read, or none yet.
   */
  private async outboxBacklog(): Promise<OutboxBacklog[] | undefined> {
    const outboxes = this.outboxes;
    if (!outboxes) return undefined;
    const fresh = this.outboxSeen !== undefined && performance.now() - this.outboxSeen.at < OUTBOX_READ_EVERY_MS;
    if (!fresh && !this.outboxRefresh) {
      this.outboxRefresh = outboxes
        .backlog()
        .then(
          (rows) => void (this.outboxSeen = { at: performance.now(), rows }),
          (err: unknown) => this.logger.warn(`outbox queues not read for /metrics: ${err instanceof Error ? err.message : String(err)}`),
        )
        .finally(() => (this.outboxRefresh = undefined));
    }
    if (this.outboxRefresh) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.outboxRefresh, new Promise<void>((resolve) => (timer = setTimeout(resolve, OUTBOX_READ_WAIT_MS)))]);
      clearTimeout(timer);
    }
    return this.outboxSeen?.rows;
  }

  /** Every background job reports its rounds here. */
  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    for (const wrapper of this.discovery.getProviders()) {
      const job = wrapper.instance as unknown;
      if (job instanceof PeriodicJob) {
        const name = job.constructor.name;
        job.observe((outcome) => this.jobRuns.inc({ job_name: name, outcome }));
      }
    }
  }

  /** The site router's file cache tells its size through this. */
  watchFileCache(bytes: () => number): void {
    this.fileCacheBytes = bytes;
  }

  /** The site router's cache (src/sites/site-cache.service.ts) tells its memory use through this. */
  watchSiteCache(use: () => SiteCacheUse): void {
    this.siteCache = use;
  }

  /** The connection caps (src/common/connection-limits.ts) tell their counts through this. */
  watchConnections(counts: () => { open: number; reserved: number }): void {
    this.connections = counts;
  }

  observeRefusedConnection(reason: string): void {
    if (this.enabled) this.connectionsRefused.inc({ reason });
  }

  observeApi(route: string, method: string, status: number, seconds: number): void {
    this.apiRequests.inc({ route, method, status: String(status) });
    this.apiDuration.observe({ route, method }, seconds);
  }

  observeSite(status: number, seconds: number): void {
    this.siteRequests.inc(Math.min(4, Math.max(0, Math.floor(status / 100) - 1)));
    this.siteDuration.observe(seconds);
  }

  observeDeploy(outcome: DeployOutcome, seconds: number, bytes = 0): void {
    this.deploys.inc({ outcome });
    this.deployDuration.observe(seconds);
    if (bytes > 0) this.deployBytes.inc(bytes);
  }
}
