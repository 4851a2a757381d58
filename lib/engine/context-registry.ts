// The registry of engines' contexts: an engine built by this package -> its context.
import type { EngineContext } from './context.js';

// Engines keep their context private; the worker runtime, which ships with the
// engine, reaches it through this registry instead of a public property.
const contexts = new WeakMap<object, EngineContext>();

/** bindContext records the context of an engine (called by its constructor). */
export function bindContext(engine: object, context: EngineContext): void {
  contexts.set(engine, context);
}

/** contextOf returns the context of an engine built by this package. */
export function contextOf(engine: object): EngineContext {
  const context = contexts.get(engine);
  if (context === undefined) throw new TypeError('not an Engine of rescue-engine');
  return context;
}
