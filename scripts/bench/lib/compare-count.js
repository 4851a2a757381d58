// Counting completions: the benchmarks stop the clock at the N-th completion,
// not when the worker has stopped (stopping is not part of the work).

/**
 * completions returns an `onCompleted` callback for a worker's completion
 * event and `finished`, a promise of the performance.now() of the count-th call.
 */
export function completions(count) {
  let done = 0;
  let resolve;
  const finished = new Promise((settle) => (resolve = settle));
  const onCompleted = () => {
    done++;
    if (done === count) resolve(performance.now());
  };
  return { onCompleted, finished };
}

/**
 * processCount starts a prepared worker (see the adapters' `worker`), waits for
 * `count` completions and stops it; returns ms from start to the count-th completion.
 */
export async function processCount(handle, { concurrency, count }) {
  const { onCompleted, finished } = completions(count);
  const worker = await handle.worker({ concurrency, onCompleted });
  const start = performance.now();
  await worker.start();
  const end = await finished;
  await worker.stop();
  return end - start;
}
