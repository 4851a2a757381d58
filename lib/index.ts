// The public entry of rescue-engine: the names of spec/api.md that exist so
// far, each listed by name (no `export *`), pinned by spec/exports.spec.ts.
export { Label, Method, Gate } from './task/label.js';
export type { Task, Labels } from './task/task.js';
export { formatTime, parseTime } from './task/time.js';
export { has, all, any, matches } from './matcher/matcher.js';
export { schedule } from './schedule/index.js';
export { Engine } from './engine/engine.js';
export type { EngineOptions } from './engine/options.js';
export type { DoctorReport, DoctorCheck, DoctorCheckName, DoctorStatus } from './engine/doctor.js';
export type { RepairReport } from './engine/repair.js';
export type { QueueStats, OwnerCount } from './engine/stats.js';
export type { WorkerPresence } from './engine/presence.js';
export type { QueueEvent, QueueEventKind, QueueEventsOptions } from './engine/events.js';
export type { TaskPage, TaskPageOptions, TaskState } from './engine/page.js';
export { Worker } from './worker/worker.js';
export type { Handler, EnsureContext } from './worker/handler.js';
export type { WorkerOptions } from './worker/options.js';
export type { WorkerEvents } from './worker/events.js';
export { createDashboard } from './dashboard/dashboard.js';
export type { Dashboard } from './dashboard/dashboard.js';
export type { DashboardOptions } from './dashboard/options.js';
export type { DashboardListenOptions, DashboardServer } from './dashboard/server.js';
export type { BasicAuth } from './dashboard/auth.js';
export {
  RescueError,
  TaskEmptyError,
  TaskMetaEmptyError,
  TaskCoreError,
  TaskCronError,
  TaskGateError,
  TaskNodeError,
  LabelReservedError,
  LabelValueError,
  TaskLimitError,
  TaskNotFoundError,
  TaskOutdatedError,
  QueueLayoutError,
  TaskResultError,
  TaskCancelledError,
  TaskTimeoutError,
  WaitTimeoutError,
  AcceptTimeoutError,
  RedisUnavailableError,
} from './errors.js';
export type { ErrorCode } from './errors.js';
