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
import { nextFlushAt } from './flush-pacing';
import { addHash, emptySketch, SparseSketch } from './hll';
import { dayOf, hourOf, normalisePath, OTHER_PATH, referrerHost, statusClass } from './traffic';

/** Distinct paths one project may add per hour between two flushes; past it they count as OTHER_PATH. */
export const MAX_PATHS_PER_FLUSH = 1000;
/** The same bound for referring hosts (a client sends any Referer it likes), past it OTHER_PATH too. */
export const MAX_REFERRERS_PER_FLUSH = 1000;

/** One rollup row's counts since the last flush. */
type Row = RollupRow;

/**
 * One project's counts of one hour since the last flush. A request finds its row in
 * the project's own small maps by the target as received: no key strings built per
 * request, and no instance-wide map that grows (and rehashes) with every site served
 * between two flushes (100,000 sites served once each per flush, issue 35). Most projects
 * of such an instance are asked one target between two flushes: the first target's row is
 * kept inline, and the maps come with a second one (kept until the flush, each project's
 * objects outlive the young generation: fewer of them, less for the collector to copy).
 */
interface ProjectHour {
  projectId: string;
  hour: number;
  /** The first request target counted, and its `path` row (of its status class). */
  firstUrl: string;
  firstRow: Row | undefined;
  /** Request target as received → its path rows by status class (HOT_URLS_MAX across projects); from the second target on. */
  urls: Map<string, (Row | undefined)[]> | undefined;
  /** Normalised path → its rows by status class: MAX_PATHS_PER_FLUSH paths, then OTHER_PATH; from the second target on. */
  paths: Map<string, (Row | undefined)[]> | undefined;
  /** Distinct paths counted (OTHER_PATH aside). */
  pathCount: number;
  /** Distinct referring hosts counted (OTHER_PATH aside). */
  referrerCount: number;
  /** The other kinds' rows (referrer, not_found, gate) by `kind\tkey`. */
  other: Map<string, Row> | undefined;
  /** Every row above but firstRow, once: what a flush writes (with firstRow, collectRows). */
  rows: Row[] | undefined;
}

/** A project-hour past its first target. */
type MappedProjectHour = ProjectHour & { urls: Map<string, (Row | undefined)[]>; paths: Map<string, (Row | undefined)[]> };

function rowOf(counts: ProjectHour, kind: RollupKind, key: string, statusClass: number): Row {
  return { projectId: counts.projectId, hour: counts.hour, kind, key, statusClass, requests: 0, pageViews: 0, botRequests: 0, bytes: 0 };
}

/** Appends every row of `counts` to `into`, each once. */
function collectRows(counts: ProjectHour, into: Row[]): void {
  if (counts.firstRow !== undefined) into.push(counts.firstRow);
  if (counts.rows !== undefined) for (const row of counts.rows) into.push(row);
}

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
/** Request targets remembered between two flushes (ProjectHour.urls); past it, new ones take the longer way. */
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
  /** Project → its counts of the latest hour it was served in. */
  private counts = new Map<string, ProjectHour>();
  /** Counts a later hour of the same project replaced before the flush, and those a failed flush put back. */
  private earlier: Row[] = [];
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
  /** Request targets remembered in every ProjectHour.urls since the last flush. */
  private hotSize = 0;
  /** The UTC day of `dayStart`..`dayStart + DAY_MS`, formatted once a day rather than per page view. */
  private dayStart = -1;
  private dayKey = '';
  /** performance.now() before which the timer does not flush (nextFlushAt). */
  private pausedUntil = 0;

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
    const now = this.clock.nowMs();
    const hour = hourOf(now);
    const cls = statusClass(status);
    const ua = uaKey(req.headers['user-agent'] ?? '');
    const bot = this.isBot(ua);
    const counts = this.countsOf(projectId, hour);
    const row = this.pathRow(counts, req.url ?? '/', cls);
    row.requests++;
    row.bytes += bytes;
    if (status === 404) this.otherRow(counts, 'not_found', row.key).requests++;
    if (bot) {
      row.botRequests++;
      return;
    }
    // A revalidated page (304) was shown again as much as a 200 one.
    if (!html || req.method !== 'GET' || (cls !== 2 && status !== 304)) return;
    row.pageViews++;
    const referrer = referrerHost(req.headers.referer, req.headers.host);
    if (referrer !== undefined) {
      const r = this.referrerRow(counts, referrer);
      r.requests++;
      r.pageViews++;
    }
    this.countVisitor(projectId, now, clientIp(req), ua, req.socket as VisitorSocket);
  }

  /** A gate event (the router's password gate, the email gate). */
  gate(projectId: string, event: GateEvent): void {
    if (!this.enabled) return;
    this.otherRow(this.countsOf(projectId, hourOf(this.clock.nowMs())), 'gate', event).requests++;
  }

  /** Writes everything counted until now. */
  async flush(): Promise<FlushReport> {
    let report = await this.trigger();
    // A round already under way took its maps before this call: what came since needs a round of its own.
    if (this.counts.size > 0 || this.earlier.length > 0 || this.visitors.size > 0) report = await this.trigger();
    return report ?? { rows: 0, sketches: 0 };
  }

  /** A slow flush holds the timer's next ones back (flush-pacing.ts); an explicit flush() always runs. */
  protected override dueOnTimer(): boolean {
    return performance.now() >= this.pausedUntil;
  }

  protected async work(): Promise<FlushReport> {
    const started = performance.now();
    try {
      return await this.write();
    } finally {
      this.pausedUntil = nextFlushAt(started, performance.now());
    }
  }

  private async write(): Promise<FlushReport> {
    await this.loadSecrets();
    const visitors = this.visitors;
    if (this.counts.size === 0 && this.earlier.length === 0 && visitors.size === 0) return { rows: 0, sketches: 0 };
    const rows = this.takeRows();
    this.visitors = new Map();
    let atLimit: string[];
    try {
      atLimit = await this.dataSource.transaction(async (m) => {
        await this.analytics.addCounts(m, rows);
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
    return { rows: rows.length, sketches: visitors.size };
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

  private countsOf(projectId: string, hour: number): ProjectHour {
    let counts = this.counts.get(projectId);
    if (counts !== undefined && counts.hour === hour) return counts;
    // A new hour (or a clock set back): the old hour's rows wait for the flush as they are.
    if (counts !== undefined) collectRows(counts, this.earlier);
    counts = {
      projectId,
      hour,
      firstUrl: '',
      firstRow: undefined,
      urls: undefined,
      paths: undefined,
      pathCount: 0,
      referrerCount: 0,
      other: undefined,
      rows: undefined,
    };
    this.counts.set(projectId, counts);
    return counts;
  }

  /** The `path` row of a request target: a comparison, or two small-map lookups, for a target seen since the last flush. */
  private pathRow(counts: ProjectHour, url: string, cls: number): Row {
    const first = counts.firstRow;
    if (first === undefined) {
      // MAX_PATHS_PER_FLUSH is more than one: the first path is always its own.
      counts.pathCount = 1;
      counts.firstUrl = url;
      return (counts.firstRow = rowOf(counts, 'path', normalisePath(url), cls));
    }
    if (counts.urls === undefined) {
      if (url === counts.firstUrl && cls === first.statusClass) return first;
      this.addMaps(counts, first);
    }
    return this.mappedPathRow(counts as MappedProjectHour, url, cls);
  }

  /** The maps of a project's second target on, holding its first. */
  private addMaps(counts: ProjectHour, first: Row): void {
    const byClass: (Row | undefined)[] = [];
    byClass[first.statusClass] = first;
    counts.paths = new Map([[first.key, byClass]]);
    counts.urls = new Map();
    if (this.hotSize >= HOT_URLS_MAX) return;
    this.hotSize++;
    if (counts.firstUrl === first.key) {
      counts.urls.set(first.key, byClass);
    } else {
      const fresh: (Row | undefined)[] = [];
      fresh[first.statusClass] = first;
      counts.urls.set(counts.firstUrl, fresh);
    }
  }

  private mappedPathRow(counts: MappedProjectHour, url: string, cls: number): Row {
    const known = counts.urls.get(url)?.[cls];
    if (known !== undefined) return known;
    let path = normalisePath(url);
    let byClass = counts.paths.get(path);
    if (byClass === undefined) {
      // A scanner asking for a million random paths must not grow memory or the table without bound.
      if (counts.pathCount >= MAX_PATHS_PER_FLUSH) {
        path = OTHER_PATH;
        byClass = counts.paths.get(path);
      } else {
        counts.pathCount++;
      }
      if (byClass === undefined) counts.paths.set(path, (byClass = []));
    }
    let row = byClass[cls];
    if (row === undefined) byClass[cls] = row = this.newRow(counts, 'path', path, cls);
    // The target as received usually is its path: then both maps share one array.
    const byUrl = counts.urls.get(url);
    if (byUrl !== undefined) byUrl[cls] = row;
    else if (this.hotSize < HOT_URLS_MAX) {
      this.hotSize++;
      if (url === path) {
        counts.urls.set(url, byClass);
      } else {
        const fresh: (Row | undefined)[] = [];
        fresh[cls] = row;
        counts.urls.set(url, fresh);
      }
    }
    return row;
  }

  private referrerRow(counts: ProjectHour, host: string): Row {
    const known = counts.other?.get(`referrer\t${host}`);
    if (known !== undefined) return known;
    // As for paths: a client naming a new host in every Referer must not grow memory or the table without bound.
    if (counts.referrerCount >= MAX_REFERRERS_PER_FLUSH) return this.otherRow(counts, 'referrer', OTHER_PATH);
    counts.referrerCount++;
    return this.otherRow(counts, 'referrer', host);
  }

  private otherRow(counts: ProjectHour, kind: Exclude<RollupKind, 'path' | 'total' | 'page'>, key: string): Row {
    const other = (counts.other ??= new Map());
    const id = `${kind}\t${key}`;
    let row = other.get(id);
    if (row === undefined) other.set(id, (row = this.newRow(counts, kind, key, 0)));
    return row;
  }

  private newRow(counts: ProjectHour, kind: RollupKind, key: string, statusClass: number): Row {
    const row = rowOf(counts, kind, key, statusClass);
    (counts.rows ??= []).push(row);
    return row;
  }

  /** Every row counted since the last flush, each key once, and empty counts for what comes next. */
  private takeRows(): Row[] {
    const rows = this.earlier;
    // Rows put back by a failed flush, or a clock set back, can repeat a key the live counts have.
    const merge = rows.length > 0;
    for (const counts of this.counts.values()) collectRows(counts, rows);
    this.counts = new Map();
    this.earlier = [];
    this.hotSize = 0;
    return merge ? sumByKey(rows) : rows;
  }

  /**
   * A client's visitor hash for today, as counted here (HMAC of project, address and user
   * agent with the day's key), or null while the day's key is not loaded (analytics off, or
   * not yet). The form intake keys its per-visitor rate limit by it: never the address.
   */
  visitorHash(projectId: string, ip: string, ua: string): Buffer | null {
    const secret = this.secrets.get(dayOf(this.clock.now().getTime()));
    return secret ? visitorHashOf(secret, projectId, ip, uaKey(ua)) : null;
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
   * Adds each sparse sketch into the stored one by register maximum: placeholder rows first
   * (so a concurrent instance waits on them instead of overwriting), locked in key order,
   * then only the registers the new visitors raised travel, and PostgreSQL raises them
   * (AnalyticsRepository.mergeRegisters). A flush after traffic to 10,000 sites used to read
   * and write back 10,000 sketches of 16 KB (docs/decisions.md, "Visitor sketches merged in
   * PostgreSQL").
   */
  private async mergeSketches(m: EntityManager, visitors: Map<string, SparseSketch>): Promise<void> {
    if (visitors.size === 0) return;
    const keys = [...visitors.keys()].sort();
    const pairs = keys.map((k) => k.split('\t'));
    const pairProjects = pairs.map(([project]) => project);
    const pairDays = pairs.map(([, day]) => day);
    await this.analytics.insertSketchPlaceholders(m, pairProjects, pairDays);
    await this.analytics.lockSketches(m, pairProjects, pairDays);
    const projects: string[] = [];
    const days: string[] = [];
    const indexes: number[] = [];
    const ranks: number[] = [];
    keys.forEach((key, i) => {
      const [project, day] = pairs[i];
      for (const [index, rank] of visitors.get(key)!) {
        projects.push(project);
        days.push(day);
        indexes.push(index);
        ranks.push(rank);
      }
    });
    await this.analytics.mergeRegisters(m, projects, days, indexes, ranks, emptySketch());
  }

  /** A failed flush's counts go back, to be written by the next one. */
  private putBack(rows: Row[], visitors: Map<string, SparseSketch>): void {
    for (const row of rows) this.earlier.push(row);
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
function servedBytes(rows: Row[]): ProjectBytes {
  const sums = new Map<string, { projectId: string; month: string; bytes: number }>();
  // A flush's rows span one or two hours: the month is worked out once per hour, not per row.
  let hour = Number.NaN;
  let month = '';
  for (const r of rows) {
    if (r.kind !== 'path' || r.bytes === 0) continue;
    if (r.hour !== hour) {
      hour = r.hour;
      month = monthKey(new Date(hour));
    }
    const id = `${r.projectId}\t${month}`;
    const sum = sums.get(id);
    if (sum) sum.bytes += r.bytes;
    else sums.set(id, { projectId: r.projectId, month, bytes: r.bytes });
  }
  const list = [...sums.values()];
  return { projectIds: list.map((s) => s.projectId), months: list.map((s) => s.month), bytes: list.map((s) => s.bytes) };
}

/**
 * A user agent as the memos and the visitor hash take it: its first 512 characters. Real
 * browsers' are a few hundred at most; one client sending a new 16 KB one with each request
 * kept 16 KB per entry of the day's memo of visitors (50,000 of them) and of the bot memo.
 */
const UA_KEY_MAX = 512;
function uaKey(ua: string): string {
  return ua.length > UA_KEY_MAX ? ua.slice(0, UA_KEY_MAX) : ua;
}

function visitorHashOf(secret: Buffer, projectId: string, ip: string, ua: string): Buffer {
  return createHmac('sha256', secret).update(projectId).update('\0').update(ip).update('\0').update(ua).digest();
}

/** Rows with the same key summed into one (a statement's upsert may touch each row once). */
function sumByKey(rows: Row[]): Row[] {
  const byKey = new Map<string, Row>();
  for (const r of rows) {
    const id = `${r.projectId}\t${r.hour}\t${r.kind}\t${r.key}\t${r.statusClass}`;
    const sum = byKey.get(id);
    if (sum === undefined) {
      byKey.set(id, { ...r });
      continue;
    }
    sum.requests += r.requests;
    sum.pageViews += r.pageViews;
    sum.botRequests += r.botRequests;
    sum.bytes += r.bytes;
  }
  return [...byKey.values()];
}
