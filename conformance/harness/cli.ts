import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { clusterNodes, redisUrl } from './redis.js';

// Runs the built `rescue` bin (dist/cli/main.js) as a child process, the way a
// user does: `npm test` builds before Jest runs.

const main = new URL('../../dist/cli/main.js', import.meta.url).pathname;

/** CliResult is how a run of `rescue` ended. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** CliOptions: the environment on top of the test's (REDIS_URL of the harness unless given). */
export interface CliOptions {
  readonly env?: Record<string, string | undefined>;
}

/** cliRedis is the harness's Redis as `--redis` takes it: a URL, or a cluster's nodes, comma-separated. */
export function cliRedis(): string {
  const nodes = clusterNodes();
  if (nodes === undefined) return redisUrl();
  return nodes.map(({ host, port }) => `redis://${host}:${port}`).join(',');
}

function environment(options: CliOptions): NodeJS.ProcessEnv {
  return { ...process.env, REDIS_URL: cliRedis(), ...options.env };
}

/** startRescue starts `rescue` with the arguments and returns the child, for commands that run on. */
export function startRescue(
  args: readonly string[],
  options: CliOptions = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [main, ...args], { env: environment(options) });
}

/** rescue runs `rescue` with the arguments to its end (20 s at most). */
export function rescue(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = startRescue(args, options);
  return finished(child);
}

/** finished collects a child's output until it exits (20 s at most: then it is killed). */
export function finished(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`rescue ${child.spawnargs.slice(2).join(' ')} did not end within 20 s`));
    }, 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** rescueJson runs `rescue ... --json`, expects exit 0 and no stderr, and parses stdout. */
export async function rescueJson<T = unknown>(
  args: readonly string[],
  options: CliOptions = {},
): Promise<T> {
  const result = await rescue([...args, '--json'], options);
  if (result.code !== 0 || result.stderr !== '')
    throw new Error(`rescue ${args.join(' ')} --json: exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** waitForOutput resolves once a stream of the child has printed text matching the pattern. */
export function waitForOutput(
  stream: NodeJS.ReadableStream,
  pattern: RegExp,
  ms = 10_000,
): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no output matching ${String(pattern)} within ${ms} ms: ${seen}`)),
      ms,
    );
    const listener = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        stream.off('data', listener);
        resolve(seen);
      }
    };
    stream.on('data', listener);
  });
}

/** oneLineError checks that a failed run wrote one line to stderr, `rescue: ...`, and nothing to stdout. */
export function oneLineError(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  if (lines.length !== 1 || !lines[0]?.startsWith('rescue: ') || result.stdout !== '')
    throw new Error(`expected one error line and no stdout; got ${JSON.stringify(result)}`);
  return lines[0];
}
