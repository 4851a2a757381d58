/** What a demo worker process tells the driver (over the IPC channel). */
export type WorkerMessage =
  | { type: 'ready'; worker: string }
  | {
      type: 'event';
      event: 'started' | 'ensured' | 'failed' | 'lost' | 'declined';
      worker: string;
      id: string;
      name: string;
      cycles: number;
      /** started: the fencing token of the claim, which grows with every claim in the queue. */
      token?: number;
      /** When the worker reported it (wall-clock ms; the processes share a clock). */
      at: number;
      /** ensured: when the handler's work ended, before the task was deleted (wall-clock ms). */
      workEnded?: number;
      detail?: string;
    }
  | { type: 'stopped'; worker: string };

/** What the driver tells a demo worker process. */
export type DriverMessage = { type: 'fixed' } | { type: 'stop' };

/** The demo's label keys. */
export const demoLabel = {
  kind: 'x.demo.io/kind',
  name: 'x.demo.io/name',
  failAttempts: 'x.demo.io/fail-attempts',
  needsFix: 'x.demo.io/needs-fix',
  action: 'x.demo.io/action',
  object: 'x.demo.io/object',
  slow: 'x.demo.io/slow',
  measure: 'x.demo.io/measure',
  tenant: 'x.demo.io/tenant',
} as const;
