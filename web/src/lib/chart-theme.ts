// What every lightweight-chart of the app shares: colours read from the page's
// CSS variables, re-applied when the colour scheme changes.
import { createChart, type IChartApi } from 'lightweight-charts';
import { useEffect, useRef } from 'react';

export function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function themeOptions() {
  const text = cssVar('--text-muted');
  const grid = cssVar('--border');
  return {
    layout: { background: { color: 'transparent' }, textColor: text, fontFamily: 'inherit' },
    grid: { vertLines: { color: grid }, horzLines: { color: grid } },
    rightPriceScale: { borderColor: grid },
    timeScale: { borderColor: grid, timeVisible: true, secondsVisible: false },
  };
}

/**
 * A chart in the returned container with one series made by `addSeries`;
 * `colors` gives the series' theme colours, re-read on a colour-scheme change.
 * The chart is made once per mount, with the factories of the first render.
 */
export function useThemedChart<S extends { applyOptions(o: object): void }>(addSeries: (chart: IChartApi) => S, colors: () => object) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<S | null>(null);
  // Callers pass new closures on every render; taking them as dependencies would
  // remake the chart (and drop its data) each time.
  const factories = useRef({ addSeries, colors });
  useEffect(() => {
    const made = factories.current;
    if (!container.current) return;
    const c = createChart(container.current, { autoSize: true, ...themeOptions() });
    series.current = made.addSeries(c);
    series.current.applyOptions(made.colors());
    chart.current = c;
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const retheme = () => {
      c.applyOptions(themeOptions());
      series.current?.applyOptions(made.colors());
    };
    media.addEventListener('change', retheme);
    return () => {
      media.removeEventListener('change', retheme);
      c.remove();
      chart.current = null;
      series.current = null;
    };
  }, []);
  return { container, chart, series };
}
