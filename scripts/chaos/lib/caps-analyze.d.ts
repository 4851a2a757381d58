// Types of caps-analyze.js, for the spec that tests the counting (spec/chaos/caps-analyze.spec.ts).
import type { ChaosRecord } from './analyze.js';

/** The meta key the per-tenant cap is declared for. */
export const tenantKey: string;

/** tenantOf chooses the tenant of task n (undefined: none). */
export function tenantOf(n: number): string | undefined;

export interface CapsCounts {
  runs: number;
  created: number;
  /** acknowledged creates no run of which ended and that were not left in the queue */
  lost: number;
  /** tasks left in the queue after the drain */
  left: number;
  runsOverQueueCap: number;
  runsOverTenantCap: number;
  /** the most runs live at once: `queue` in all, and per tenant */
  mostRuns: Record<string, number>;
}

export function analyzeCaps(
  records: readonly ChaosRecord[],
  caps: { queue: number; tenant: number },
): CapsCounts;
