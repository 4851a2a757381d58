import type { Engine } from '../engine/engine.js';

// Workers keep their engine private; metrics and tracing, given a Worker, reach
// its engine through this registry instead of a public property.
const engines = new WeakMap<object, Engine>();

/** bindWorker records the engine of a worker (called by its constructor). */
export function bindWorker(worker: object, engine: Engine): void {
  engines.set(worker, engine);
}

/** engineOf returns the engine of a Worker of this package, or undefined for anything else. */
export function engineOf(worker: object): Engine | undefined {
  return engines.get(worker);
}
