/**
 * Pure helpers of the dashboard's pages (unit-tested in format.spec.ts): what the
 * pages compute from the API's answers, kept apart from rendering.
 */

/** A date input's `YYYY-MM-DD` as the end of that day in the user's time zone, for an expiry "on" that day. */
export function endOfDayIso(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y, m - 1, d, 23, 59, 59, 999).toISOString();
}

/** How full a quota is: 0..1 of its limit (above 1 when over); null when unlimited. */
export function quotaShare(used: number, limit: number | null): number | null {
  if (limit === null) return null;
  if (limit === 0) return used > 0 ? Infinity : 1;
  return used / limit;
}

export type SeriesPoint = {
  time: string;
  pageViews: number;
  visitors: number | null;
  requests: number;
  botRequests: number;
  status4xx: number;
  status5xx: number;
};

/**
 * The API's series as uPlot's columns: x in Unix seconds, then one array per line.
 * Visitors are per day only (null per hour): uPlot leaves a gap for null.
 */
export function chartColumns(series: SeriesPoint[]): [number[], number[], (number | null)[], number[], number[]] {
  const x: number[] = [];
  const views: number[] = [];
  const visitors: (number | null)[] = [];
  const requests: number[] = [];
  const errors: number[] = [];
  for (const p of series) {
    x.push(Date.parse(p.time) / 1000);
    views.push(p.pageViews);
    visitors.push(p.visitors);
    requests.push(p.requests);
    errors.push(p.status4xx + p.status5xx);
  }
  return [x, views, visitors, requests, errors];
}

/** `YYYY-MM-DD` of a Date in UTC (the analytics API's days are UTC). */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The file name a CSV download is saved under: the project's slug and today's date. */
export function csvName(slug: string, at: Date): string {
  return `leads-${slug}-${utcDay(at)}.csv`;
}

/** The file name a form's CSV download is saved under: the project's slug, the form's name (as a file name allows) and today's date. */
export function submissionsCsvName(slug: string, formName: string, at: Date): string {
  const name = formName.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'form';
  return `form-${slug}-${name}-${utcDay(at)}.csv`;
}
