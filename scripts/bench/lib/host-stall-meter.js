// The host-stall meter's process (host-stalls.js): it sleeps 1 ms at a time
// and prints each wake-up that came late by the threshold (ms, argv) or more,
// as `<epoch ms of the wake-up> <ms late>`. A process of its own, so that the
// benchmark's event loop, busy with its clients, does not delay it.
const threshold = Number(process.argv[2] ?? 4);
const cell = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  const before = performance.now();
  Atomics.wait(cell, 0, 0, 1);
  const late = performance.now() - before - 1;
  // (a pipe's write is synchronous on Linux: the line is out before the next sleep)
  if (late >= threshold) process.stdout.write(`${Date.now()} ${late.toFixed(2)}\n`);
}
