// The overview's charts: one line per series, drawn as inline SVG (no
// script, no library) from points in time. Colours come from the stylesheet
// (a class per series); the SVG stretches to the page's width, so its axes'
// labels are HTML beside and below it: the values (0, half, the top) and
// the times (UTC) at its start, middle and end.
import { html, type Html } from '../html.js';
import { duration } from './format.js';

const width = 640;
const height = 160;
const pad = 4;

/** ChartPoint is the value of each series at an instant (ms). */
export interface ChartPoint {
  readonly at: number;
  readonly values: Readonly<Record<string, number>>;
}

/**
 * chart draws the points of the last `mostSpanMs` ms before the newest one,
 * or of the time since the first point when that is shorter (a dashboard
 * that just started draws what it has across the whole width).
 */
export function chart(
  points: readonly ChartPoint[],
  series: readonly string[],
  mostSpanMs: number,
  label: string,
): Html {
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined || points.length < 2 || last.at <= first.at)
    return html`<p class="none">Collecting samples: the chart fills in over the next minutes.</p>`;
  const spanMs = Math.min(mostSpanMs, last.at - first.at);
  const from = last.at - spanMs;
  const shown = points.filter((point) => point.at >= from);
  const top = Math.max(
    1,
    ...shown.flatMap((point) => series.map((name) => point.values[name] ?? 0)),
  );
  const x = (at: number) => pad + ((at - from) / spanMs) * (width - 2 * pad);
  const y = (value: number) => height - pad - (value / top) * (height - 2 * pad);
  const lines = series.map((name) => {
    const coordinates = shown.map(
      (point) => `${x(point.at).toFixed(1)},${y(point.values[name] ?? 0).toFixed(1)}`,
    );
    return html`<polyline
      class="series ${name}"
      vector-effect="non-scaling-stroke"
      points="${coordinates.join(' ')}"
    />`;
  });
  const grid = [0, 0.5, 1].map(
    (share) =>
      html`<line
        class="grid"
        x1="${pad}"
        y1="${y(top * share).toFixed(1)}"
        x2="${width - pad}"
        y2="${y(top * share).toFixed(1)}"
      />`,
  );
  const half = top / 2;
  return html`<figure class="chart">
    <div class="chart-frame">
      <div class="y-axis" aria-hidden="true">
        <span data-axis="top">${top}</span>
        <span>${Number.isInteger(half) ? half : half.toFixed(1)}</span>
        <span>0</span>
      </div>
      <svg
        viewBox="0 0 ${width} ${height}"
        role="img"
        preserveAspectRatio="none"
        aria-label="${label}, the last ${duration(spanMs)}"
      >
        <line
          class="axis"
          x1="${pad}"
          y1="${height - pad}"
          x2="${width - pad}"
          y2="${height - pad}"
        />
        <line class="axis" x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" />
        ${grid} ${lines}
      </svg>
      <div class="x-axis" aria-hidden="true">
        <time datetime="${new Date(from).toISOString()}" data-axis="from">${clockTime(from)}</time>
        <time datetime="${new Date(from + spanMs / 2).toISOString()}"
          >${clockTime(from + spanMs / 2)}</time
        >
        <time datetime="${new Date(last.at).toISOString()}" data-axis="to"
          >${clockTime(last.at)}</time
        >
      </div>
    </div>
    <figcaption>
      ${series.map((name) => html`<span class="legend ${name}">${name}</span>`)}
      <span class="span"
        >${label}, the last ${duration(spanMs)} (${clockTime(from)} to ${clockTime(last.at)} UTC),
        from 0 to ${top}</span
      >
    </figcaption>
  </figure>`;
}

/** clockTime writes an instant (ms) as the UTC time of day, `14:03:27`. */
function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
