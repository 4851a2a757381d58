import { runCli } from '../../lib/cli/run.js';
import { runDashboardCommand } from '../../lib/dashboard/command.js';
import { startRedisServer, type RedisServer } from '../../lib/testing/index.js';
import { signal, until } from '../harness/worker.js';

// `rescue dashboard` (runDashboardCommand, and through runCli): arguments, the address
// rule, and a server that answers until it is told to stop. The command takes
// a Redis URL, so it gets a redis-server of its own whatever the harness runs
// (a cluster, an ACL user).

let redis: RedisServer;
const redisUrl = () => redis.url;

beforeAll(async () => {
  redis = await startRedisServer({ env: {} });
});

afterAll(async () => {
  await redis.stop();
});

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stop = signal();
  return {
    out,
    err,
    stop,
    io: {
      out: (line: string) => out.push(line),
      err: (line: string) => err.push(line),
      env,
      stopped: stop.promise,
    },
  };
}

describe('the dashboard command', () => {
  it('serves a queue read-only on 127.0.0.1 until it is stopped', async () => {
    const run = io();
    const queue = `dashboard-command-${process.pid}`;
    const exit = runDashboardCommand(
      ['--redis', redisUrl(), '--queue', queue, '--port', '0'],
      run.io,
    );
    await until(
      () => run.out.length > 0 || run.err.length > 0,
      5_000,
      'the command says where it serves',
    );
    const url = /(http:\/\/127\.0\.0\.1:\d+)\/ for rescue\.io:\{dashboard-command-\d+\}/.exec(
      run.out[0] ?? '',
    )?.[1];
    expect(run.out[0]).toContain('(read-only)');
    const page = await fetch(`${url ?? ''}/tasks`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('read-only');
    const refused = await fetch(`${url ?? ''}/create`, { method: 'POST' });
    expect(refused.status).toBe(403);
    run.stop.resolve();
    expect(await exit).toBe(0);
    await expect(fetch(`${url ?? ''}/`)).rejects.toThrow();
  });

  it('takes --write, a token from the environment, and a base path', async () => {
    const run = io({ RESCUE_DASHBOARD_TOKEN: 'token-from-the-environment' });
    const exit = runDashboardCommand(
      ['--redis', redisUrl(), '--port', '0', '--write', '--base-path', '/ops'],
      run.io,
    );
    await until(
      () => run.out.length > 0 || run.err.length > 0,
      5_000,
      'the command says where it serves',
    );
    expect(run.out[0]).toMatch(/http:\/\/127\.0\.0\.1:\d+\/ops\/ .*\(write\)$/);
    const base = /(http:\S+)\/ for/.exec(run.out[0] ?? '')?.[1] ?? '';
    expect((await fetch(`${base}/`)).status).toBe(401);
    const entry = await fetch(`${base}/?token=token-from-the-environment`, { redirect: 'manual' });
    expect(entry.status).toBe(303);
    run.stop.resolve();
    expect(await exit).toBe(0);
  });

  it('serves the queue gauges at /metrics with --metrics', async () => {
    const run = io();
    const exit = runDashboardCommand(['--redis', redisUrl(), '--port', '0', '--metrics'], run.io);
    await until(
      () => run.out.length > 0 || run.err.length > 0,
      5_000,
      'the command says where it serves',
    );
    const base = /(http:\S+)\/ for/.exec(run.out[0] ?? '')?.[1] ?? '';
    const scraped = await fetch(`${base}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/^# TYPE rescue_queue_tasks gauge$/m);
    run.stop.resolve();
    expect(await exit).toBe(0);
  });

  it.each([
    [['--port', 'x'], /--port/],
    [['--nope'], /Unknown option/],
    [['--host', '0.0.0.0'], /needs --token or --basic-auth/],
    [['--basic-auth', 'nocolon'], /user:password/],
    [['--token', 'short'], /at least 16 characters/],
  ])('refuses %j', async (args, message) => {
    const run = io();
    const code = await runDashboardCommand(['--redis', redisUrl(), '--port', '0', ...args], run.io);
    expect(code).toBeGreaterThan(0);
    expect(run.err.join('\n')).toMatch(message);
  });

  it('is `rescue dashboard`', async () => {
    const run = io();
    const exit = runCli(['dashboard', '--redis', redisUrl(), '--port', '0', '--write'], run.io);
    await until(
      () => run.out.length > 0 || run.err.length > 0,
      5_000,
      'the command says where it serves',
    );
    const url = /(http:\S+)\/ for/.exec(run.out[0] ?? '')?.[1] ?? '';
    expect(run.out[0]).toContain('(write)');
    expect((await fetch(`${url}/create`)).status).toBe(200);
    run.stop.resolve();
    expect(await exit).toBe(0);
  });

  it('prints its usage', async () => {
    const run = io();
    expect(await runDashboardCommand(['--help'], run.io)).toBe(0);
    expect(run.out.join('\n')).toContain('Usage: rescue dashboard');
  });
});
