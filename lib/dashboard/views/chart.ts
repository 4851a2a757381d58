// The overview's chart of the queue over the last minutes: one line per
// count, drawn as inline SVG from the live feed's samples (no script, no
// library). Colours come from the stylesheet (class per series); the SVG
// stretches to the page's width, so its scale is written in the caption.
import { html, type Html } from '../html.js';
import type { Sample } from '../live.js';
import { duration } from './format.js';

const width = 640;
const height = 160;
const pad = 4;

/** The counts the chart draws, each a line. */
export const chartSeries = ['claimable', 'owned', 'waiting', 'halted'] as const;

/**
 * chart draws the samples of the last `spanMs` ms before the newest one, or
 * of the time since the first sample when that is shorter (a dashboard that
 * just started draws what it has across the whole width).
 */
export function chart(samples: readonly Sample[], mostSpanMs: number): Html {
  const first = samples[0];
  const last = samples.at(-1);
  if (first === undefined || last === undefined || samples.length < 2 || last.at <= first.at)
    return html`<p class="none">Collecting samples: the chart fills in over the next minutes.</p>`;
  const spanMs = Math.min(mostSpanMs, last.at - first.at);
  const from = last.at - spanMs;
  const shown = samples.filter((sample) => sample.at >= from);
  const top = Math.max(1, ...shown.flatMap((sample) => chartSeries.map((name) => sample[name])));
  const x = (at: number) => pad + ((at - from) / spanMs) * (width - 2 * pad);
  const y = (value: number) => height - pad - (value / top) * (height - 2 * pad);
  const lines = chartSeries.map((name) => {
    const points = shown.map(
      (sample) => `${x(sample.at).toFixed(1)},${y(sample[name]).toFixed(1)}`,
    );
    return html`<polyline
      class="series ${name}"
      vector-effect="non-scaling-stroke"
      points="${points.join(' ')}"
    />`;
  });
  return html`<figure class="chart">
    <svg
      viewBox="0 0 ${width} ${height}"
      role="img"
      preserveAspectRatio="none"
      aria-label="tasks by state, last ${duration(spanMs)}"
    >
      <line
        class="axis"
        x1="${pad}"
        y1="${height - pad}"
        x2="${width - pad}"
        y2="${height - pad}"
      />
      ${lines}
    </svg>
    <figcaption>
      ${chartSeries.map((name) => html`<span class="legend ${name}">${name}</span>`)}
      <span class="span">the last ${duration(spanMs)}, from 0 to ${top}</span>
    </figcaption>
  </figure>`;
}
