// Table cells for the comparison: a median, its min–max and ratios.
import { number } from './report.js';

/** median renders a summary's median. */
export const median = (figures, digits = 0) => number(figures.median, digits);

/** range renders a summary's min–max (one run: just its figure). */
export const range = (figures, digits = 0) =>
  figures.runs === 1
    ? number(figures.min, digits)
    : `${number(figures.min, digits)}–${number(figures.max, digits)}`;

/** ratio renders ours / theirs of two medians, as `1.23 ×`. */
export const ratio = (ours, theirs) => `${number(ours.median / theirs.median, 2)} ×`;

/** medianOf says what a figure is: the median of alternating runs, or a single run. */
export const medianOf = (runs, per = 'per side') =>
  runs === 1 ? `One run ${per}` : `Median of ${runs} alternating runs ${per}`;

/** sideBySide renders median, min–max for ours and for theirs and their ratio. */
export const sideBySide = (ours, theirs, digits = 0) => [
  median(ours, digits),
  range(ours, digits),
  median(theirs, digits),
  range(theirs, digits),
  ratio(ours, theirs),
];
