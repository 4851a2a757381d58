import type { EngineContext } from '../engine/context.js';
import type { Engine } from '../engine/engine.js';
import { contextOf } from '../engine/context-registry.js';
import { describe } from '../task/describe.js';

// Workers keep their engine private; metrics and tracing, given a Worker, reach
// its engine through this registry instead of a public property.
const engines = new WeakMap<object, Engine>();

/** bindWorker records the engine of a worker (called by its constructor). */
export function bindWorker(worker: object, engine: Engine): void {
  engines.set(worker, engine);
}

/**
 * contextOfTarget returns the context of an Engine, or of a Worker's engine,
 * for `what` (registerMetrics, registerTracing); a TypeError for anything else.
 */
export function contextOfTarget(target: unknown, what: string): EngineContext {
  if (typeof target === 'object' && target !== null) {
    try {
      return contextOf(engines.get(target) ?? target);
    } catch {
      // not an engine: the error below says what it is
    }
  }
  throw new TypeError(
    `${what}: the target must be an Engine or a Worker of rescue-engine; got ${describe(target)}`,
  );
}
