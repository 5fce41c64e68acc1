import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { Injectable } from '@nestjs/common';
import { isbot } from 'isbot';
import { DataSource, type EntityManager } from 'typeorm';

import { PeriodicJob } from '../common/periodic-job';
import { Clock, DAY_MS } from '../common/time';
import { AppConfig } from '../config/app-config';
import { monthKey } from '../quotas/quota';
import type { ProjectBytes } from '../quotas/quota.repository';
import { QuotaService } from '../quotas/quota.service';
import { SitePauses } from '../quotas/site-pauses.service';
import type { GateEvent, RollupKind } from './analytics.entities';
import { AnalyticsRepository, type RollupRow } from './analytics.repository';
import { addHash, emptySketch, mergeSparse, SparseSketch } from './hll';
import { dayOf, hourOf, normalisePath, OTHER_PATH, referrerHost, statusClass } from './traffic';

/** Distinct paths one project may add per hour between two flushes; past it they count as OTHER_PATH. */
export const MAX_PATHS_PER_FLUSH = 1000;

/** One rollup row's counts since the last flush. */
type Row = RollupRow;

export interface FlushReport {
  rows: number;
  sketches: number;
}

/**
 * Counts site answers in memory and writes them in batches. The site router calls
 * `record` once per answer, after it is sent ('finish'): a map lookup and a few
 * increments; the visitor hash (HMAC with the day's key) only for page views. Every
 * ANALYTICS_FLUSH_SECONDS, and on shutdown, `flush` swaps the maps for empty ones and
 * adds them to the hourly and daily rollups in one transaction (upserts that add, so
 * any number of instances sum up); a failed flush puts its counts back for the next.
 * A crash loses what was counted since the last flush (docs/decisions.md).
 */
/** Visitors remembered per instance to skip hashing their repeat page views (cleared daily and when full). */
const SEEN_VISITORS_MAX = 50_000;
/** Request targets remembered between two flushes (hotRow); past it, new ones take the longer way. */
const HOT_URLS_MAX = 20_000;
/** On a connection: the last visitor counted on it, so its next page views skip even the `seen` lookup. */
const LAST_VISITOR = Symbol('lastVisitor');
interface LastVisitor {
  projectId: string;
  ip: string;
  ua: string;
  day: string;
}
type VisitorSocket = IncomingMessage['socket'] & { [LAST_VISITOR]?: LastVisitor };

@Injectable()
export class AnalyticsRecorder extends PeriodicJob<FlushReport> {
  readonly enabled: boolean;
  private rows = new Map<string, Row>();
  /** `project\thour` → distinct paths added since the last flush. */
  private paths = new Map<string, number>();
  /** `project\tday` → registers touched. */
  private visitors = new Map<string, SparseSketch>();
  /** UTC day → the visitor-hash key of that day (today's and tomorrow's, loaded ahead). */
  private secrets = new Map<string, Buffer>();
  private purgedBefore?: string;
  /** User agent → bot? (a handful of agents arrive over and over; isbot is a large regex). */
  private readonly seen = new Set<string>();
  private seenDay = '';
  private readonly bots = new Map<string, boolean>();
  private missingSecretWarned = false;
  /**
   * Project → request target as received → its path rows by status class, for `hour` and
   * the live `rows` map (cleared when either changes): a repeated URL costs two map
   * lookups instead of normalising its path and building the row's key every time.
   */
  private hot = new Map<string, Map<string, (Row | undefined)[]>>();
  private hotHour = -1;
  private hotSize = 0;
  /** The UTC day of `dayStart`..`dayStart + DAY_MS`, formatted once a day rather than per page view. */
  private dayStart = -1;
  private dayKey = '';

  constructor(
    config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly analytics: AnalyticsRepository,
    private readonly clock: Clock,
    private readonly quotas: QuotaService,
    private readonly pauses: SitePauses,
  ) {
    super(AnalyticsRecorder.name, config.ANALYTICS_ENABLED ? config.ANALYTICS_FLUSH_SECONDS : 0);
    this.enabled = config.ANALYTICS_ENABLED;
  }

  override onApplicationBootstrap(): void {
    if (!this.enabled) return;
    super.onApplicationBootstrap();
    // Visitors are counted from the first request when the key is there in time; until then page views still count.
    this.loadSecrets().catch((err) => this.logger.warn(`visitor keys not loaded yet: ${(err as Error).message}`));
  }

  /** Shutdown writes what is still in memory (after the timer's round in progress). */
  override async onModuleDestroy(): Promise<void> {
    await super.onModuleDestroy();
    if (!this.enabled) return;
    await this.flush().catch((err) => this.logger.error(`final analytics flush failed: ${(err as Error).message}`));
  }

  /**
   * One site answer. `html`: the body was an HTML file (a 2xx or 304 of one is a page
   * view); `bytes`: what went on the wire, headers included.
   */
  record(projectId: string, req: IncomingMessage, status: number, bytes: number, html: boolean, clientIp: (req: IncomingMessage) => string): void {
    const now = this.clock.now().getTime();
    const hour = hourOf(now);
    const cls = statusClass(status);
    const ua = req.headers['user-agent'] ?? '';
    const bot = this.isBot(ua);
    const row = this.hotRow(projectId, hour, req.url ?? '/', cls);
    row.requests++;
    row.bytes += bytes;
    if (status === 404) this.row(projectId, hour, 'not_found', row.key, 0).requests++;
    if (bot) {
      row.botRequests++;
      return;
    }
    // A revalidated page (304) was shown again as much as a 200 one.
    if (!html || req.method !== 'GET' || (cls !== 2 && status !== 304)) return;
    row.pageViews++;
    const referrer = referrerHost(req.headers.referer, req.headers.host);
    if (referrer !== undefined) {
      const r = this.row(projectId, hour, 'referrer', referrer, 0);
      r.requests++;
      r.pageViews++;
    }
    this.countVisitor(projectId, now, clientIp(req), ua, req.socket as VisitorSocket);
  }

  /** A gate event (the router's password gate, the email gate). */
  gate(projectId: string, event: GateEvent): void {
    if (!this.enabled) return;
    this.row(projectId, hourOf(this.clock.now().getTime()), 'gate', event, 0).requests++;
  }

  /** Writes everything counted until now. */
  async flush(): Promise<FlushReport> {
    let report = await this.trigger();
    // A round already under way took its maps before this call: what came since needs a round of its own.
    if (this.rows.size > 0 || this.visitors.size > 0) report = await this.trigger();
    return report ?? { rows: 0, sketches: 0 };
  }

  protected async work(): Promise<FlushReport> {
    await this.loadSecrets();
    const rows = this.rows;
    const visitors = this.visitors;
    if (rows.size === 0 && visitors.size === 0) return { rows: 0, sketches: 0 };
    this.rows = new Map();
    this.visitors = new Map();
    this.paths.clear();
    this.clearHot(-1);
    let atLimit: string[];
    try {
      atLimit = await this.dataSource.transaction(async (m) => {
        // Sorted, so two instances flushing at once lock rows in the same order (no deadlock).
        const hourly = withDerived(rows).sort(compareRows);
        await this.analytics.addRollups(m, 'analytics_hourly', hourly);
        await this.analytics.addRollups(m, 'analytics_daily', byDay(hourly));
        await this.mergeSketches(m, visitors);
        // The workspaces' bandwidth (billing, issue 31) from the same counts, in the same
        // transaction: a failed flush retries both, and neither is ever counted twice.
        return this.quotas.countBandwidth(m, servedBytes(rows));
      });
    } catch (err) {
      this.putBack(rows, visitors);
      throw err;
    }
    // A workspace reached its bandwidth limit: if its spend cap is on, its sites pause now here (elsewhere within SPEND_CAP_REFRESH_SECONDS).
    if (atLimit.length > 0) await this.pauses.refresh().catch((err) => this.logger.warn(`paused sites not re-read: ${(err as Error).message}`));
    return { rows: rows.size, sketches: visitors.size };
  }

  private isBot(ua: string): boolean {
    let bot = this.bots.get(ua);
    if (bot === undefined) {
      // No user agent at all is a script, not a person.
      bot = ua === '' || isbot(ua);
      if (this.bots.size >= 5000) this.bots.clear();
      this.bots.set(ua, bot);
    }
    return bot;
  }

  /** pathRow of a request target, remembered per target (see `hot`). */
  private hotRow(projectId: string, hour: number, url: string, cls: number): Row {
    if (hour !== this.hotHour) this.clearHot(hour);
    let byUrl = this.hot.get(projectId);
    if (!byUrl) this.hot.set(projectId, (byUrl = new Map()));
    let byClass = byUrl.get(url);
    const known = byClass?.[cls];
    if (known) return known;
    const row = this.pathRow(projectId, hour, normalisePath(url), cls);
    if (this.hotSize < HOT_URLS_MAX) {
      if (!byClass) byUrl.set(url, (byClass = []));
      byClass[cls] = row;
      this.hotSize++;
    }
    return row;
  }

  private clearHot(hour: number): void {
    this.hot.clear();
    this.hotHour = hour;
    this.hotSize = 0;
  }

  private pathRow(projectId: string, hour: number, path: string, cls: number): Row {
    const known = this.rows.get(`${projectId}\t${hour}\tpath\t${path}\t${cls}`);
    if (known) return known;
    // A scanner asking for a million random paths must not grow memory or the table without bound.
    const ph = `${projectId}\t${hour}`;
    const added = this.paths.get(ph) ?? 0;
    if (added >= MAX_PATHS_PER_FLUSH) return this.row(projectId, hour, 'path', OTHER_PATH, cls);
    this.paths.set(ph, added + 1);
    return this.row(projectId, hour, 'path', path, cls);
  }

  private row(projectId: string, hour: number, kind: RollupKind, key: string, cls: number): Row {
    const id = `${projectId}\t${hour}\t${kind}\t${key}\t${cls}`;
    let row = this.rows.get(id);
    if (!row) {
      row = { projectId, hour, kind, key, statusClass: cls, requests: 0, pageViews: 0, botRequests: 0, bytes: 0 };
      this.rows.set(id, row);
    }
    return row;
  }

  /**
   * A client's visitor hash for today, as counted here (HMAC of project, address and user
   * agent with the day's key), or null while the day's key is not loaded (analytics off, or
   * not yet). The form intake keys its per-visitor rate limit by it: never the address.
   */
  visitorHash(projectId: string, ip: string, ua: string): Buffer | null {
    const secret = this.secrets.get(dayOf(this.clock.now().getTime()));
    return secret ? visitorHashOf(secret, projectId, ip, ua) : null;
  }

  /** The visitor id is never kept: only the HyperLogLog registers its hash touches. */
  private countVisitor(projectId: string, now: number, ip: string, ua: string, socket: VisitorSocket): void {
    if (now < this.dayStart || now >= this.dayStart + DAY_MS) {
      this.dayStart = now - (now % DAY_MS);
      this.dayKey = dayOf(now);
    }
    const day = this.dayKey;
    // A keep-alive connection brings one visitor's page views in a row. Skipping one that is
    // already counted is always right: its hash would touch no register a sketch of the day lacks.
    const last = socket[LAST_VISITOR];
    if (last !== undefined && last.ua === ua && last.ip === ip && last.projectId === projectId && last.day === day) return;
    // A visitor's next page views change no register of the sketch: skip the HMAC for them.
    // This set lives in memory only, for the day, bounded; nothing of it is written anywhere.
    if (day !== this.seenDay) {
      this.seen.clear();
      this.seenDay = day;
    }
    const seenKey = `${projectId}\0${ip}\0${ua}`;
    if (this.seen.has(seenKey)) {
      socket[LAST_VISITOR] = { projectId, ip, ua, day };
      return;
    }
    const secret = this.secrets.get(day);
    if (!secret) {
      if (!this.missingSecretWarned) this.logger.warn(`no visitor key for ${day} yet: page views count, visitors do not until the next flush loads it`);
      this.missingSecretWarned = true;
      return;
    }
    const hash = visitorHashOf(secret, projectId, ip, ua);
    const key = `${projectId}\t${day}`;
    let sketch = this.visitors.get(key);
    if (!sketch) this.visitors.set(key, (sketch = new Map()));
    addHash(sketch, hash);
    if (this.seen.size >= SEEN_VISITORS_MAX) this.seen.clear();
    this.seen.add(seenKey);
    socket[LAST_VISITOR] = { projectId, ip, ua, day };
  }

  /**
   * Today's and tomorrow's keys, created by whichever instance comes first (so all
   * share them); keys of past days are deleted, and forgotten here.
   */
  private async loadSecrets(): Promise<void> {
    const now = this.clock.now().getTime();
    const today = dayOf(now);
    const tomorrow = dayOf(now + 86_400_000);
    for (const day of this.secrets.keys()) if (day < today) this.secrets.delete(day);
    if (this.purgedBefore !== today) {
      await this.analytics.deleteSecretsBefore(today);
      this.purgedBefore = today;
    }
    if (this.secrets.has(today) && this.secrets.has(tomorrow)) return;
    await this.analytics.insertSecrets(today, randomBytes(32), tomorrow, randomBytes(32));
    const rows = await this.analytics.secrets(today, tomorrow);
    for (const r of rows) this.secrets.set(r.day, r.secret);
    this.missingSecretWarned = false;
  }

  /**
   * Adds each sparse sketch into the stored one by register maximum: placeholder rows
   * first (so a concurrent instance waits on them instead of overwriting), then read
   * under lock, merge here, write back.
   */
  private async mergeSketches(m: EntityManager, visitors: Map<string, SparseSketch>): Promise<void> {
    if (visitors.size === 0) return;
    const keys = [...visitors.keys()].sort();
    const projects = keys.map((k) => k.split('\t')[0]);
    const days = keys.map((k) => k.split('\t')[1]);
    await this.analytics.insertSketchPlaceholders(m, projects, days);
    const stored = await this.analytics.lockSketches(m, projects, days);
    const merged: Buffer[] = [];
    for (const row of stored) {
      const registers = row.sketch.length === 0 ? emptySketch() : Buffer.from(row.sketch);
      mergeSparse(registers, visitors.get(`${row.project_id}\t${row.day}`)!);
      merged.push(registers);
    }
    await this.analytics.writeSketches(
      m,
      stored.map((r) => r.project_id),
      stored.map((r) => r.day),
      merged,
    );
  }

  /** A failed flush's counts go back into the live maps, to be written by the next one. */
  private putBack(rows: Map<string, Row>, visitors: Map<string, SparseSketch>): void {
    for (const [id, row] of rows) {
      const live = this.rows.get(id);
      if (!live) {
        this.rows.set(id, row);
        continue;
      }
      live.requests += row.requests;
      live.pageViews += row.pageViews;
      live.botRequests += row.botRequests;
      live.bytes += row.bytes;
    }
    for (const [key, sketch] of visitors) {
      const live = this.visitors.get(key);
      if (!live) {
        this.visitors.set(key, sketch);
        continue;
      }
      for (const [index, rank] of sketch) if ((live.get(index) ?? 0) < rank) live.set(index, rank);
    }
  }
}

/** Bytes on the wire per project and month (UTC) of the hour they were served in; the `path` rows hold every answer's bytes once. */
function servedBytes(rows: Map<string, Row>): ProjectBytes {
  const sums = new Map<string, { projectId: string; month: string; bytes: number }>();
  for (const r of rows.values()) {
    if (r.kind !== 'path' || r.bytes === 0) continue;
    const month = monthKey(new Date(r.hour));
    const id = `${r.projectId}\t${month}`;
    const sum = sums.get(id);
    if (sum) sum.bytes += r.bytes;
    else sums.set(id, { projectId: r.projectId, month, bytes: r.bytes });
  }
  const list = [...sums.values()];
  return { projectIds: list.map((s) => s.projectId), months: list.map((s) => s.month), bytes: list.map((s) => s.bytes) };
}

function compareRows(a: Row, b: Row): number {
  return cmp(a.projectId, b.projectId) || cmp(a.kind, b.kind) || a.hour - b.hour || cmp(a.key, b.key) || a.statusClass - b.statusClass;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The counted rows plus what queries read instead of every path: per project, hour and
 * status class the sums (`total`), and per path with page views those (`page`).
 * Computed here, once per flush, so serving never pays for them.
 */
function withDerived(rows: Map<string, Row>): Row[] {
  const derived = new Map<string, Row>();
  const add = (r: Row, kind: RollupKind, key: string, cls: number) => {
    const id = `${r.projectId}\t${r.hour}\t${kind}\t${key}\t${cls}`;
    const d = derived.get(id);
    if (!d) derived.set(id, { ...r, kind, key, statusClass: cls });
    else {
      d.requests += r.requests;
      d.pageViews += r.pageViews;
      d.botRequests += r.botRequests;
      d.bytes += r.bytes;
    }
  };
  for (const r of rows.values()) {
    if (r.kind !== 'path') continue;
    add(r, 'total', '', r.statusClass);
    if (r.pageViews > 0) add(r, 'page', r.key, 0);
  }
  return [...rows.values(), ...derived.values()];
}

/** Hourly rows summed per UTC day, in the same (sorted) order. */
function byDay(rows: Row[]): Row[] {
  const days = new Map<string, Row>();
  for (const r of rows) {
    const day = Date.parse(dayOf(r.hour));
    const id = `${r.projectId}\t${day}\t${r.kind}\t${r.key}\t${r.statusClass}`;
    const d = days.get(id);
    if (!d) days.set(id, { ...r, hour: day });
    else {
      d.requests += r.requests;
      d.pageViews += r.pageViews;
      d.botRequests += r.botRequests;
      d.bytes += r.bytes;
    }
  }
  return [...days.values()].sort(compareRows);
}

function visitorHashOf(secret: Buffer, projectId: string, ip: string, ua: string): Buffer {
  return createHmac('sha256', secret).update(projectId).update('\0').update(ip).update('\0').update(ua).digest();
}
