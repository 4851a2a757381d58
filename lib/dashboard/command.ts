// The dashboard as a command: read the arguments, open an engine on the
// queue, serve until SIGINT / SIGTERM. `rescue dashboard` (lib/cli/commands)
// runs it (`npm run dashboard` too). Unlike the other commands it
// does not exit when Redis cannot be reached: it serves, says so on its
// pages, and recovers when Redis answers again.
import { parseArgs } from 'node:util';
import { Engine } from '../engine/engine.js';
import { createDashboard } from './dashboard.js';
import type { DashboardOptions } from './options.js';
import { isLoopback, listenDefaults } from './server.js';

const dashboardUsage = `Usage: rescue dashboard [options]

Serves a web dashboard of one queue (read-only unless --write).

Options:
  --redis <url>          Redis to read (default $REDIS_URL, else redis://127.0.0.1:6379)
  --queue <name>         queue (default 'default')
  --host <address>       address to bind (default 127.0.0.1; others need --token or --basic-auth)
  --port <n>             port (default 4000; 0: a free one)
  --base-path <path>     serve under this path, e.g. /rescue
  --write                allow actions: delete with bypass, reset cycles, create
  --token <token>        require this token (16+ characters; or $RESCUE_DASHBOARD_TOKEN);
                         open http://host:port/?token=<token> once in the browser
  --basic-auth <u:p>     require this user and password (or $RESCUE_DASHBOARD_BASIC_AUTH)
  --metrics              also serve the queue's gauges at /metrics (needs prom-client)
  --json                 print where it serves as JSON ({ url, queue, redis, write }) for scripts
  --help                 show this help
`;

/** DashboardCommandIo is where the command writes and how it learns to stop. */
export interface DashboardCommandIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** resolves when the command should stop (a signal) */
  readonly stopped: Promise<void>;
}

/** runDashboardCommand serves until `stopped`; resolves with the exit code (2: bad arguments). */
export async function runDashboardCommand(argv: string[], io: DashboardCommandIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        redis: { type: 'string' },
        queue: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        'base-path': { type: 'string' },
        write: { type: 'boolean' },
        token: { type: 'string' },
        'basic-auth': { type: 'string' },
        metrics: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    io.err(`rescue dashboard: ${(error as Error).message}; see rescue dashboard --help`);
    return 2;
  }
  if (values.help === true) {
    io.out(dashboardUsage);
    return 0;
  }
  const port = values.port === undefined ? listenDefaults.port : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.err(`rescue dashboard: --port must be 0 to 65535`);
    return 2;
  }
  const host = values.host ?? listenDefaults.host;
  const token = values.token ?? nonEmpty(io.env['RESCUE_DASHBOARD_TOKEN']);
  const basic = values['basic-auth'] ?? nonEmpty(io.env['RESCUE_DASHBOARD_BASIC_AUTH']);
  const options: DashboardOptions = { write: values.write === true };
  if (token !== undefined) options.token = token;
  if (basic !== undefined) {
    const colon = basic.indexOf(':');
    if (colon <= 0) {
      io.err('rescue dashboard: --basic-auth must be user:password');
      return 2;
    }
    options.basicAuth = { username: basic.slice(0, colon), password: basic.slice(colon + 1) };
  }
  if (values['base-path'] !== undefined) options.basePath = values['base-path'];
  if (!isLoopback(host) && token === undefined && basic === undefined) {
    io.err(
      `rescue dashboard: binding ${host} needs --token or --basic-auth (anyone could reach it)`,
    );
    return 2;
  }
  const engine = new Engine({
    ...(values.redis === undefined ? {} : { redis: values.redis }),
    ...(values.queue === undefined ? {} : { queue: values.queue }),
  });
  try {
    if (values.metrics === true) options.metrics = await gaugesOf(engine);
    const dashboard = createDashboard(engine, options);
    const server = await dashboard.listen({ host, port });
    const url = `${server.url}${options.basePath ?? ''}/`;
    const mode = options.write === true ? 'write' : 'read-only';
    io.out(
      values.json === true
        ? JSON.stringify({
            url,
            queue: engine.keyfmt(),
            redis: engine.listen(),
            write: options.write === true,
          })
        : `rescue dashboard: ${url} for ${engine.keyfmt()} on ${engine.listen()} (${mode})`,
    );
    await io.stopped;
    await server.close();
    await dashboard.close();
    return 0;
  } catch (error) {
    io.err(`rescue dashboard: ${(error as Error).message}`);
    return 1;
  } finally {
    await engine.close();
  }
}

/** gaugesOf is a registry of the queue's gauges; prom-client is loaded only here (optional). */
async function gaugesOf(engine: Engine): Promise<NonNullable<DashboardOptions['metrics']>> {
  const promClient = await import('prom-client').catch(() => undefined);
  if (promClient === undefined)
    throw new Error('--metrics needs prom-client: npm install prom-client');
  const { registerMetrics } = await import('../metrics/index.js');
  const registry = new promClient.Registry();
  registerMetrics(engine, registry, { activity: false });
  return registry;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
