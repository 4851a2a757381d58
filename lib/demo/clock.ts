import { systemClock, type Clock } from '../clock.js';

/**
 * The demo's engines run on one clock that moves `speed` times faster than the
 * wall clock from a shared epoch, so that a `2 minutes` template fires every 2
 * real seconds and a 3-minute lease lasts 3 real seconds. Every process
 * computes the same instants from the same epoch.
 */
export const demoSpeed = 60;

export function demoClock(epochMs: number, speed = demoSpeed): Clock {
  return () => new Date(epochMs + (systemClock().getTime() - epochMs) * speed);
}

/** The lease of the demo's engines: 3 demo minutes, 3 real seconds. */
export const demoExpiry = 3 * 60_000;
