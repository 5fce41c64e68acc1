import 'uplot/dist/uPlot.min.css';

import { useQuery } from '@tanstack/react-query';
import { ExternalLink } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type uPlot from 'uplot';

import type { Schemas } from '../api';
import { chartNumbers, loadUPlot } from '../charts';
import { ButtonIcon, Empty, ErrorNote, Loading, SelectField, TableWrap } from '../components/ui';
import { chartColumns } from '../format';
import { analyticsQueries } from '../hooks/api/analytics';
import { formatBytes, formatNumber, formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

/*
 * This page is its own chunk (routes.tsx), and uPlot with it: nobody pays for the
 * chart library before opening a project's analytics.
 */

type Range = { label: string; days: number; interval: 'hour' | 'day' };
const RANGES: Range[] = [
  { label: 'Last 48 hours, by hour', days: 2, interval: 'hour' },
  { label: 'Last 7 days', days: 7, interval: 'day' },
  { label: 'Last 30 days', days: 30, interval: 'day' },
  { label: 'Last 90 days', days: 90, interval: 'day' },
];

export function Analytics() {
  const project = useProject();
  const [rangeIndex, setRangeIndex] = useState(2);
  const range = RANGES[rangeIndex];
  const workspaceId = useWorkspaceId();
  const analytics = useQuery(analyticsQueries.range(workspaceId, project.id, range.days, range.interval));
  const data = analytics.data;
  const quiet = data && data.totals.requests === 0;

  return (
    <>
      <h2>Analytics</h2>
      <SelectField
        label="Period"
        value={rangeIndex}
        onChange={(e) => setRangeIndex(Number(e.target.value))}
        hint="Times in UTC. Counts arrive up to a few seconds late."
      >
        {RANGES.map((r, i) => (
          <option key={r.label} value={i}>
            {r.label}
          </option>
        ))}
      </SelectField>
      {analytics.isPending ? <Loading what="analytics" /> : null}
      <ErrorNote error={analytics.error} />
      {data ? (
        <>
          <Totals totals={data.totals} />
          {quiet ? (
            <Empty
              title="No traffic yet"
              action={
                <a className="button" href={project.url} target="_blank" rel="noreferrer">
                  <ButtonIcon icon={ExternalLink} />
                  Visit the site
                </a>
              }
            >
              No visits in this period yet: page views, visitors, top pages and referrers appear here once the site is visited.
            </Empty>
          ) : (
            <>
              <Chart title="Page views and visitors" series={data.series} lines={VISITS} />
              <Chart title="Requests and errors" series={data.series} lines={ANSWERS} />
              <div className="grid">
                <Top title="Top pages" rows={data.topPages.map((p) => [p.path, p.pageViews])} unit="Page views" />
                <Top title="Top referrers" rows={data.topReferrers.map((r) => [r.host, r.pageViews])} unit="Page views" />
                <Top title="Not found" rows={data.topNotFound.map((n) => [n.path, n.requests])} unit="Requests" />
              </div>
            </>
          )}
          <Funnel funnel={data.funnel} />
          <p className="muted">
            From {formatTime(data.from)} to {formatTime(data.to)} ({data.interval === 'hour' ? 'hourly' : 'daily'} buckets).
          </p>
        </>
      ) : null}
    </>
  );
}

function Totals({ totals }: { totals: Schemas['AnalyticsTotalsDto'] }) {
  const items: [string, string][] = [
    ['Page views', formatNumber(totals.pageViews)],
    ['Visitors', formatNumber(totals.visitors)],
    ['Requests', formatNumber(totals.requests)],
    ['Sent', formatBytes(totals.bytes)],
    ['4xx answers', formatNumber(totals.status4xx)],
    ['5xx answers', formatNumber(totals.status5xx)],
    ['Bot requests', formatNumber(totals.botRequests)],
  ];
  return (
    <dl className="totals">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

type Line = { label: string; column: 1 | 2 | 3 | 4; color: string };
// Constants, so a chart is rebuilt only when its data changes.
const VISITS: Line[] = [
  { label: 'Page views', column: 1, color: '--accent' },
  { label: 'Visitors', column: 2, color: '--ok' },
];
const ANSWERS: Line[] = [
  { label: 'Requests', column: 3, color: '--muted' },
  { label: 'Errors (4xx and 5xx)', column: 4, color: '--danger' },
];

/**
 * A uPlot line chart sized to its container (375 px phones included). The canvas is
 * described to screen readers by its title and totals; the same figures are in the
 * tables and totals around it.
 */
function Chart({ title, series, lines }: { title: string; series: Schemas['AnalyticsPointDto'][]; lines: Line[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<unknown>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let live = true;
    let plot: uPlot | undefined;
    let resize: ResizeObserver | undefined;
    loadUPlot()
      .then((UPlot) => {
        if (!live) return;
        const css = getComputedStyle(document.documentElement);
        const color = (name: string) => css.getPropertyValue(name).trim() || '#888';
        const columns = chartColumns(series);
        const axis = { stroke: color('--muted'), grid: { stroke: color('--border'), width: 1 }, ticks: { stroke: color('--border') } };
        plot = new UPlot(
          {
            width: Math.max(el.clientWidth, 200),
            height: 220,
            scales: { x: { time: true } },
            series: [{}, ...lines.map((l) => ({ label: l.label, stroke: color(l.color), width: 2, spanGaps: false, value: chartNumbers.legend }))],
            axes: [axis, { ...axis, size: 50, values: chartNumbers.axis }],
          },
          [columns[0], ...lines.map((l) => columns[l.column])] as uPlot.AlignedData,
          el,
        );
        const shown = plot;
        resize = new ResizeObserver(() => shown.setSize({ width: Math.max(el.clientWidth, 200), height: 220 }));
        resize.observe(el);
      })
      // Also what building the chart throws (a bad series), not only a failed load: the page shows it.
      .catch(setFailed);
    return () => {
      live = false;
      resize?.disconnect();
      plot?.destroy();
    };
  }, [series, lines]);
  const sum = (column: number) => chartColumns(series)[column].reduce<number>((n, v) => n + (v ?? 0), 0);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <ErrorNote error={failed} />
      <div
        ref={box}
        role="img"
        aria-label={`${title}: ${lines.map((l) => `${l.label} ${formatNumber(sum(l.column))} in total`).join(', ')}, over ${series.length} buckets`}
      />
    </figure>
  );
}

function Top({ title, rows, unit }: { title: string; rows: [string, number][]; unit: string }) {
  return (
    <TableWrap label={title}>
      <table>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{title === 'Top referrers' ? 'Site' : 'Path'}</th>
            <th scope="col">{unit}</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={2} className="muted">
                None
              </td>
            </tr>
          ) : (
            rows.map(([key, n]) => (
              <tr key={key}>
                <td className="mono">{key}</td>
                <td>{formatNumber(n)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </TableWrap>
  );
}

function Funnel({ funnel }: { funnel: Schemas['AnalyticsFunnelDto'] }) {
  if (funnel.gateType === 'none') return null;
  return (
    <section>
      <h3>Gate ({funnel.gateType})</h3>
      <dl className="totals">
        <div>
          <dt>Gate shown</dt>
          <dd>{formatNumber(funnel.gateViews)}</dd>
        </div>
        <div>
          <dt>Unlocked</dt>
          <dd>{formatNumber(funnel.unlocks)}</dd>
        </div>
        {funnel.gateType === 'password' ? (
          <div>
            <dt>Wrong passwords</dt>
            <dd>{formatNumber(funnel.wrongPasswords)}</dd>
          </div>
        ) : (
          <div>
            <dt>Emails captured</dt>
            <dd>{formatNumber(funnel.emailsCaptured)}</dd>
          </div>
        )}
        <div>
          <dt>Unlock rate</dt>
          <dd>{funnel.unlockRate === null ? '—' : `${Math.round(funnel.unlockRate * 100)} %`}</dd>
        </div>
      </dl>
    </section>
  );
}
