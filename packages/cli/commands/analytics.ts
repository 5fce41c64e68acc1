import type { Command } from 'commander';

import type { components, StatichostClient } from '../../sdk';
import { Context, type Io } from '../context';
import { formatBytes, tableSection } from '../format';
import { resolveProject } from '../resolve';

export type ProjectAnalytics = components['schemas']['AnalyticsDto'];

export interface AnalyticsOptions {
  from?: string;
  to?: string;
  interval?: 'hour' | 'day';
}

/** `GET /projects/{projectId}/analytics` (shared by the CLI and the MCP tool). */
export function getAnalytics(client: StatichostClient, projectId: string, options: AnalyticsOptions = {}): Promise<ProjectAnalytics> {
  return client.call(
    client.api.GET('/projects/{projectId}/analytics', {
      params: { path: { projectId }, query: { from: options.from, to: options.to, interval: options.interval } },
    }),
  );
}

/** The human form: totals, then the lists, then the series (UTC). */
export function formatAnalytics(a: ProjectAnalytics): string {
  const t = a.totals;
  const lines = [
    `${a.from.slice(0, 16).replace('T', ' ')} → ${a.to.slice(0, 16).replace('T', ' ')} UTC, by ${a.interval}`,
    `Page views ${t.pageViews}   Visitors ${t.visitors}   Requests ${t.requests}   Sent ${formatBytes(t.bytes)}   4xx ${t.status4xx}   5xx ${t.status5xx}   Bots ${t.botRequests}`,
  ];
  lines.push(
    ...tableSection(a.topPages, ['PAGE', 'VIEWS'], (p) => [p.path, p.pageViews]),
    ...tableSection(a.topReferrers, ['REFERRER', 'VIEWS'], (r) => [r.host, r.pageViews]),
    ...tableSection(a.topNotFound, ['NOT FOUND', 'REQUESTS'], (p) => [p.path, p.requests]),
  );
  if (a.funnel.gateType !== 'none') {
    const f = a.funnel;
    const rate = f.unlockRate === null ? '–' : `${(f.unlockRate * 100).toFixed(1)} %`;
    lines.push(
      '',
      `Gate (${f.gateType}): ${f.gateViews} views → ${f.unlocks} unlocks (${rate})${f.gateType === 'email' ? `, ${f.emailsCaptured} emails` : `, ${f.wrongPasswords} wrong passwords`}`,
    );
  }
  lines.push(
    ...tableSection(
      a.series.filter((p) => p.requests > 0),
      [a.interval === 'day' ? 'DAY' : 'HOUR', 'VIEWS', 'VISITORS', 'REQUESTS', 'SENT'],
      (p) => [
        a.interval === 'day' ? p.time.slice(0, 10) : p.time.slice(0, 16).replace('T', ' '),
        p.pageViews,
        p.visitors ?? '',
        p.requests,
        formatBytes(p.bytes),
      ],
    ),
  );
  return lines.join('\n');
}

export function analyticsCommand(program: Command, io: Io): void {
  program
    .command('analytics')
    .description('Site traffic of a project: page views, visitors, top pages, referrers, 404s and the gate funnel')
    .argument('<project>', 'slug or proj_ id')
    .option('--from <date>', 'ISO 8601 date or UTC time (default: 30 days ago)')
    .option('--to <date>', 'ISO 8601 date (included) or UTC time (default: now)')
    .option('--interval <interval>', 'hour or day', 'day')
    .action(async (projectRef: string, opts: { from?: string; to?: string; interval: 'hour' | 'day' }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await resolveProject(client, projectRef);
      const result = await getAnalytics(client, project.id, opts);
      ctx.print(result, () => formatAnalytics(result));
    });
}
