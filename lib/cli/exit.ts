// Exit codes and the one-line error messages of `rescue`. Every failure ends
// as one line on stderr and one of these codes; no stack traces.
import { RedisUnavailableError, RescueError, TaskNotFoundError } from '../errors.js';

/** ExitCode: what `rescue` exits with (docs/cli.md, exit codes). */
export const ExitCode = {
  /** it worked (doctor: no check failed) */
  Ok: 0,
  /** the command failed: the engine refused it, or doctor found a failure */
  Failed: 1,
  /** the command line is wrong: unknown command or flag, bad value, a missing --yes */
  Usage: 2,
  /** Redis cannot be reached (refused, timed out, connection lost) */
  Unreachable: 3,
  /** the task named is not in the queue */
  NotFound: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** CliError is a failure the CLI itself detected, with the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** usageError: the command line is wrong (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(message, ExitCode.Usage);
}

/** notFound: the task named is not in the queue (exit 4). */
export function notFound(id: string): CliError {
  return new CliError(`task ${id} is not in the queue`, ExitCode.NotFound);
}

/** unreachable: Redis cannot be reached at the address (exit 3). */
export function unreachable(address: string, cause: unknown): CliError {
  return new CliError(
    `cannot reach Redis at ${address}: ${messageOf(cause)}`,
    ExitCode.Unreachable,
  );
}

/** The ioredis and socket errors that mean the connection is gone, not that a command failed. */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);

/** isConnectionError tells whether an error says Redis went away (rather than refused a command). */
function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && connectionCodes.has(code)) ||
    name === 'MaxRetriesPerRequestError' ||
    (typeof message === 'string' &&
      /^Connection is closed|^Stream isn't writeable|^Command timed out/.test(message))
  );
}

/** exitCodeOf maps an error to the code `rescue` exits with. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof TaskNotFoundError) return ExitCode.NotFound;
  if (error instanceof RedisUnavailableError) return ExitCode.Unreachable;
  if (error instanceof RescueError) return ExitCode.Failed;
  if (isConnectionError(error)) return ExitCode.Unreachable;
  return ExitCode.Failed;
}

/** messageOf is an error's message on one line. */
export function messageOf(error: unknown): string {
  // by its message property: errors of another realm (node:util's in a VM) are not `instanceof Error`
  const message = (error as { message?: unknown } | null)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}
