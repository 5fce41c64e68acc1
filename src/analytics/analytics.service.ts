import { Injectable } from '@nestjs/common';

import { Clock, DAY_MS } from '../common/time';
import { ProjectsService } from '../projects/projects.service';
import type { Principal } from '../shared/principal';
import { AnalyticsRepository, type SeriesRow, type TopRange } from './analytics.repository';
import type { AnalyticsDto, AnalyticsFunnelDto, AnalyticsPointDto } from './analytics.view';
import { emptySketch, estimate, HLL_REGISTERS, mergeDense } from './hll';
import { buckets, parseRange } from './range';

const TOP = 10;

/**
 * Reads the rollups: daily rows for `interval=day`, hourly ones for `interval=hour`
 * (kept ANALYTICS_HOURLY_RETENTION_DAYS), visitors by merging the days' sketches.
 * Each list is one range of a primary key (project, kind, time): the series reads the
 * `total` rows (5 per bucket), top pages the `page` rows, never every path.
 */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly analytics: AnalyticsRepository,
    private readonly projects: ProjectsService,
    private readonly clock: Clock,
  ) {}

  async forProject(principal: Principal, projectId: string, query: { from?: string; to?: string; interval?: string }): Promise<AnalyticsDto> {
    const range = parseRange(query, this.clock.now());
    const project = await this.projects.findVisible(principal, projectId);
    // Days as dates, hours as instants: both compare on the primary key's second column.
    const from = range.interval === 'day' ? range.from.toISOString().slice(0, 10) : range.from;
    const to = range.interval === 'day' ? range.to.toISOString().slice(0, 10) : range.to;

    // Top lists and the funnel read daily rows for the whole days inside the range and
    // hourly rows only for the partial days at its ends: a 30-day range by hour reads 30
    // days' worth of daily keys, not 720 hours' worth.
    let wholeFrom = Math.ceil(range.from.getTime() / DAY_MS) * DAY_MS;
    let wholeTo = Math.floor(range.to.getTime() / DAY_MS) * DAY_MS;
    if (wholeFrom >= wholeTo) wholeFrom = wholeTo = range.to.getTime();
    const dayIso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const topRange: TopRange = {
      projectId: project.id,
      from: range.from,
      to: range.to,
      wholeFromDay: dayIso(wholeFrom),
      wholeToDay: dayIso(wholeTo),
      wholeFrom: new Date(wholeFrom),
      wholeTo: new Date(wholeTo),
    };

    const [series, pages, referrers, notFound, gate, sketches] = await Promise.all([
      this.analytics.series(range.interval, project.id, from, to),
      this.analytics.top(topRange, 'page', 'page_views', TOP),
      this.analytics.top(topRange, 'referrer', 'page_views', TOP),
      this.analytics.top(topRange, 'not_found', 'requests', TOP),
      this.analytics.top(topRange, 'gate', 'requests', null),
      // Sketches are per day: an hourly range counts the visitors of the days it touches.
      this.analytics.visitorSketches(
        project.id,
        range.from.toISOString().slice(0, 10),
        new Date(Math.ceil(range.to.getTime() / DAY_MS) * DAY_MS).toISOString().slice(0, 10),
      ),
    ]);

    const all = emptySketch();
    const perDay = new Map<string, number>();
    for (const s of sketches) {
      if (s.sketch.length !== HLL_REGISTERS) continue; // a placeholder of a flush in progress
      mergeDense(all, s.sketch);
      perDay.set(s.day, estimate(s.sketch));
    }

    const byTime = new Map<number, SeriesRow>();
    for (const r of series) byTime.set(new Date(r.t instanceof Date ? r.t : `${r.t}T00:00:00Z`).getTime(), r);
    const points: AnalyticsPointDto[] = buckets(range).map((start) => {
      const r = byTime.get(start.getTime());
      const key = start.toISOString();
      return {
        time: key,
        pageViews: Number(r?.page_views ?? 0),
        visitors: range.interval === 'day' ? (perDay.get(key.slice(0, 10)) ?? 0) : null,
        requests: Number(r?.requests ?? 0),
        bytes: Number(r?.bytes ?? 0),
        status4xx: Number(r?.s4 ?? 0),
        status5xx: Number(r?.s5 ?? 0),
        botRequests: Number(r?.bots ?? 0),
      };
    });
    const sum = (f: (p: AnalyticsPointDto) => number) => points.reduce((n, p) => n + f(p), 0);

    return {
      projectId: project.id,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      interval: range.interval,
      totals: {
        pageViews: sum((p) => p.pageViews),
        visitors: estimate(all),
        requests: sum((p) => p.requests),
        bytes: sum((p) => p.bytes),
        status4xx: sum((p) => p.status4xx),
        status5xx: sum((p) => p.status5xx),
        botRequests: sum((p) => p.botRequests),
      },
      series: points,
      topPages: pages.map((r) => ({ path: r.key, pageViews: Number(r.n) })),
      topReferrers: referrers.map((r) => ({ host: r.key, pageViews: Number(r.n) })),
      topNotFound: notFound.map((r) => ({ path: r.key, requests: Number(r.n) })),
      funnel: funnel(project.gateType, gate),
    };
  }
}

/** Always an object (an OpenAPI 3.0 nullable object is awkward for generators): zeros and gate type none for a public project without gate events. */
function funnel(gateType: string, rows: { key: string; n: string }[]): AnalyticsFunnelDto {
  const count = (event: string) => Number(rows.find((r) => r.key === event)?.n ?? 0);
  const gateViews = count('gate_view');
  const unlocks = count('unlocked');
  return {
    gateType,
    gateViews,
    wrongPasswords: count('wrong_password'),
    unlocks,
    emailsCaptured: count('email_captured'),
    unlockRate: gateViews > 0 ? Math.round((unlocks / gateViews) * 10_000) / 10_000 : null,
  };
}
