// Progress lines with the elapsed time, so a long run shows where it is.
const started = performance.now();

/** progress prints a line prefixed with the seconds since the benchmark started. */
export function progress(message) {
  const seconds = (performance.now() - started) / 1000;
  console.log(`[${seconds.toFixed(1).padStart(6)} s] ${message}`);
}
