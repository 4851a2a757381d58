/**
 * The public entry of rescue-engine: the public API, each name listed (no
 * `export *`), pinned by spec/exports.spec.ts.
 *
 * @module rescue-engine
 */
export { Label, Method, Gate } from './task/label.js';
export type { Task, TaskInput, Labels } from './task/task.js';
export { formatTime, parseTime } from './task/time.js';
export { has, all, any, matches } from './matcher/matcher.js';
export { schedule } from './schedule/index.js';
export type { Ticks } from './schedule/index.js';
export type { Clock } from './clock.js';
export { Engine } from './engine/engine.js';
export type { Durability, EngineOptions } from './engine/options.js';
export type { RetryPolicy } from './engine/retry-policy.js';
export type { CreateOptions } from './engine/create.js';
export type { CreateManyOptions } from './engine/create-many.js';
export type { UniqueOptions, UniqueCreate } from './engine/unique.js';
export type { ScheduleResult } from './engine/named-schedule.js';
export type { WaitOptions, RunOptions } from './engine/wait.js';
export type { Outcome, OutcomeError } from './engine/outcome.js';
export type { OutcomeState, TaskState, TaskPageState } from './task/state.js';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- kept for code written against 0.1.0
export type { TaskStatusState } from './task/state.js';
export type { AttemptRecord, TaskStatus } from './engine/status.js';
export type { DoctorReport, DoctorCheck, DoctorCheckName, DoctorStatus } from './engine/doctor.js';
export type { RepairReport } from './engine/repair.js';
export type { Cap, CapState } from './engine/caps.js';
export type { RateLimit, RateLimitState } from './engine/rates.js';
export type {
  QueueStats,
  OwnerCount,
  CapStats,
  CapValue,
  PausedQuery,
  RateLimitStats,
  RateWindow,
} from './engine/stats.js';
export type { WorkerPresence } from './engine/presence.js';
export type { QueueEvent, QueueEventKind, QueueEventsOptions } from './engine/events.js';
export type { TaskPage, TaskPageOptions } from './engine/page.js';
export type { BulkOptions, BulkResult } from './engine/bulk.js';
export { defineTask } from './typed/define-task.js';
export type {
  TaskDefinition,
  TypedTask,
  TypedOutcome,
  TypedEnsure,
  TypedEnsureContext,
  TypedHandlerOptions,
  TypedCreateOptions,
  TypedRunOptions,
} from './typed/define-task.js';
export type {
  StandardSchemaV1,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaIssue,
} from './typed/standard-schema.js';
export { Worker } from './worker/worker.js';
export type { Handler, EnsureContext } from './worker/handler.js';
export type { WorkerOptions } from './worker/options.js';
export type { WorkerEvents } from './worker/events.js';
export { createDashboard } from './dashboard/dashboard.js';
export type { Dashboard } from './dashboard/dashboard.js';
export type { DashboardOptions, MetricsSource } from './dashboard/options.js';
export type { DashboardListenOptions, DashboardServer } from './dashboard/server.js';
export type { BasicAuth } from './dashboard/auth.js';
export {
  RescueError,
  TaskEmptyError,
  TaskKeyError,
  TaskMetaEmptyError,
  TaskCoreError,
  TaskCronError,
  TaskGateError,
  TaskNodeError,
  LabelReservedError,
  LabelValueError,
  TaskLimitError,
  TaskPayloadError,
  TaskNotFoundError,
  TaskOutdatedError,
  QueueLayoutError,
  TaskResultError,
  TaskCancelledError,
  TaskTimeoutError,
  WaitTimeoutError,
  AcceptTimeoutError,
  UnrecoverableError,
  ReplicaTimeoutError,
  RedisUnavailableError,
} from './errors.js';
export type { ErrorCode } from './errors.js';
