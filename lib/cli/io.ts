// Where a command writes and how it learns to stop: the process's streams and
// signals in `rescue`, anything else in a test.

/** CliIo is what a command may touch of the outside world. */
export interface CliIo {
  /** writes a line (or several) to stdout */
  readonly out: (text: string) => void;
  /** writes a line (or several) to stderr */
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** resolves when the command should stop (SIGINT, SIGTERM): for commands that run until then */
  readonly stopped: Promise<void>;
}

/**
 * processIo is the CliIo of the running process. `stopped` handles SIGINT and
 * SIGTERM only once a command asks for it (tail --follow): for every other
 * command Ctrl-C keeps its default, ending the process at once.
 */
export function processIo(): CliIo {
  let stopped: Promise<void> | undefined;
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    get stopped() {
      stopped ??= new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      return stopped;
    },
  };
}
