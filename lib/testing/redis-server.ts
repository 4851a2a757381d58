import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, createConnection } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** RedisServer is a Redis to talk to: one this module started, or one named by the environment. */
export interface RedisServer {
  /** `redis://host:port` (or the configured REDIS_URL). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The pid of the redis-server we started; undefined for an external server. */
  readonly pid: number | undefined;
  /** True when REDIS_URL or REDIS_PORT named the server and nothing was started. */
  readonly external: boolean;
  /** Stops exactly the process this module started; does nothing for an external server. */
  stop(): Promise<void>;
}

export interface StartRedisOptions {
  /** The redis-server binary; default `redis-server` from PATH. */
  binary?: string;
  /** Environment to read REDIS_URL / REDIS_PORT from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the server to answer, in ms; default 10 000. */
  readyTimeoutMs?: number;
  /** A fixed loopback port (to restart a server where clients expect it); default a free one. */
  port?: number;
  /**
   * More configuration, as directives and their values (`{ 'maxmemory-policy':
   * 'allkeys-lru', appendonly: 'yes' }`); they override the defaults (no
   * persistence). Ignored for an external server.
   */
  config?: Readonly<Record<string, string>>;
  /**
   * The data directory (AOF, RDB; made when missing), kept when the server stops, so a server
   * started again on it loads what the last one wrote; default a temporary
   * one, removed on stop.
   */
  dir?: string;
}

const installHint =
  'redis-server was not found on PATH. Install it with `apt-get install -y redis-server` ' +
  '(Debian/Ubuntu; `scripts/setup` does this when run as root), or set REDIS_URL to a running server.';

/**
 * startRedisServer returns the Redis named by REDIS_URL or REDIS_PORT when one
 * is set, and otherwise starts `redis-server` on a free loopback port with no
 * persistence and waits until it answers PING. A watchdog process kills that
 * redis-server when this process exits for any reason, so an interrupted test
 * run or demo leaves nothing behind.
 */
export async function startRedisServer(options: StartRedisOptions = {}): Promise<RedisServer> {
  const env = options.env ?? process.env;
  const external = externalServer(env);
  if (external !== undefined) return external;

  let lastError: unknown;
  // A free port can be taken between probing and binding; try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launch(options.binary ?? 'redis-server', options.readyTimeoutMs ?? 10_000, {
        fixedPort: options.port,
        config: options.config ?? {},
        keptDir: options.dir,
      });
    } catch (error) {
      if (error instanceof Error && error.message === installHint) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

function externalServer(env: NodeJS.ProcessEnv): RedisServer | undefined {
  const url = env['REDIS_URL'];
  const port = env['REDIS_PORT'];
  if (url !== undefined && url !== '') {
    const parsed = new URL(url);
    return externalHandle(url, parsed.hostname || '127.0.0.1', Number(parsed.port || 6379));
  }
  if (port !== undefined && port !== '') {
    const number = Number(port);
    if (!Number.isInteger(number) || number <= 0 || number > 65535) {
      throw new RangeError(`REDIS_PORT must be a TCP port number; got "${port}"`);
    }
    return externalHandle(`redis://127.0.0.1:${number}`, '127.0.0.1', number);
  }
  return undefined;
}

function externalHandle(url: string, host: string, port: number): RedisServer {
  return { url, host, port, pid: undefined, external: true, stop: async () => {} };
}

interface LaunchOptions {
  fixedPort: number | undefined;
  config: Readonly<Record<string, string>>;
  keptDir: string | undefined;
}

async function launch(
  binary: string,
  readyTimeoutMs: number,
  { fixedPort, config, keptDir }: LaunchOptions,
): Promise<RedisServer> {
  const host = '127.0.0.1';
  const port = fixedPort ?? (await freePort(host));
  if (keptDir !== undefined) mkdirSync(keptDir, { recursive: true });
  const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'rescue-redis-'));
  const removeDir = () => {
    if (keptDir === undefined) rmSync(dir, { recursive: true, force: true });
  };
  const server = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      host,
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
      // later directives win over the defaults above
      ...Object.entries(config).flatMap(([name, value]) => [`--${name}`, value]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const gaveUp = new AbortController();
  const exited = new Promise<never>((_, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error(installHint) : error),
    );
    server.once('exit', (code, signal) =>
      reject(
        new Error(
          `redis-server exited before answering (code ${code}, signal ${signal}): ${output.trim()}`,
        ),
      ),
    );
  });
  exited.catch(() => {}); // observed below; avoid an unhandled rejection after a normal stop

  try {
    await Promise.race([waitForPing(host, port, readyTimeoutMs, gaveUp.signal), exited]);
  } catch (error) {
    gaveUp.abort();
    server.kill('SIGKILL');
    removeDir();
    throw error;
  }

  const pid = server.pid;
  if (pid === undefined) throw new Error('redis-server started without a pid');
  const watchdog = startWatchdog(pid);
  server.unref();
  server.stdout.destroy();
  server.stderr.destroy();

  let stopped: Promise<void> | undefined;
  return {
    url: `redis://${host}:${port}`,
    host,
    port,
    pid,
    external: false,
    stop: () => (stopped ??= stop(server, watchdog, removeDir)),
  };
}

/**
 * The watchdog is a shell that reads its stdin until this process's end of the
 * pipe closes (normal exit, crash or SIGKILL alike) and then kills the one pid
 * it was given.
 */
function startWatchdog(pid: number): ChildProcess {
  const watchdog = spawn(
    'sh',
    ['-c', 'cat >/dev/null; kill -TERM "$1" 2>/dev/null', 'watchdog', String(pid)],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  watchdog.unref();
  // The pipe must not keep this process alive either.
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
}

async function stop(
  server: ChildProcess,
  watchdog: ChildProcess,
  removeDir: () => void,
): Promise<void> {
  if (server.exitCode === null && server.signalCode === null) {
    const exit = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 5_000);
    await exit;
    clearTimeout(timer);
  }
  // Kill the watchdog before closing its pipe, so it never signals a reused pid.
  watchdog.kill('SIGKILL');
  watchdog.stdin?.destroy();
  removeDir();
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

async function waitForPing(
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!signal.aborted) {
    if (await ping(host, port)) return;
    if (performance.now() > deadline) {
      throw new Error(`redis-server on ${host}:${port} did not answer PING within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function ping(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}
