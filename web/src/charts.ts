import type uPlot from 'uplot';

import { accepted, formatNumber, locale } from './locale';

let loading: Promise<typeof uPlot> | undefined;

/**
 * uPlot, loaded on first use. uPlot builds its number format from navigator.language
 * while its module is evaluated (`new Intl.NumberFormat(navigator.language)` in uPlot
 * 1.6.32; changed upstream in leeoniya/uPlot#1054, not yet released), so a tag Intl
 * refuses ("en-US@posix") throws at import and takes the page with it. For that moment
 * only, navigator.language reads as the locale the dashboard formats in; the browser's
 * own value is back once the module has run. ESLint keeps other imports of uplot to
 * types only, so no static import can evaluate it first.
 */
export function loadUPlot(): Promise<typeof uPlot> {
  loading ??= (async () => {
    const shadow = accepted(navigator.language) === undefined;
    if (shadow) Object.defineProperty(navigator, 'language', { configurable: true, get: locale });
    try {
      return (await import('uplot')).default;
    } finally {
      // The own property goes; Navigator.prototype's getter answers again.
      if (shadow) delete (navigator as { language?: string }).language;
    }
  })().catch((err: unknown) => {
    loading = undefined; // a chunk that failed to load may load on the next try
    throw err;
  });
  return loading;
}

/** uPlot's number labels (axis ticks, legend) in the dashboard's formats, not uPlot's own. */
export const chartNumbers = {
  axis: (_u: uPlot, splits: number[]): string[] => splits.map((v) => (v === null || v === undefined ? '' : formatNumber(v))),
  legend: (_u: uPlot, v: number | null): string => (v === null || v === undefined ? '' : formatNumber(v)),
};
