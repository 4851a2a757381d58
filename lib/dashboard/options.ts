// The options of createDashboard: defaults, and the checks that turn a bad
// option into a TypeError or RangeError naming it, before anything starts.
import { systemClock, type Clock } from '../clock.js';
import { RescueError } from '../errors.js';
import { requireBoolean, requireFunction, requireInteger, timerBounds } from '../options.js';
import { describe } from '../task/describe.js';
import type { BasicAuth } from './auth.js';
import { readAllowedHosts, type AllowedHosts } from './hosts.js';

/** DashboardOptions configures createDashboard; every option has a default. */
export interface DashboardOptions {
  /**
   * Allow the actions (delete with bypass, reset cycles, create). Without it
   * the dashboard only reads, and answers every action with 403.
   * @defaultValue false
   */
  write?: boolean;
  /**
   * A token every request must carry (16 characters at least): a browser opens
   * `/?token=<token>` once and keeps it in a cookie; programs send
   * `Authorization: Bearer <token>`.
   * @defaultValue none
   */
  token?: string;
  /** A user name and password the browser asks for (HTTP basic auth). @defaultValue none */
  basicAuth?: BasicAuth;
  /**
   * The Host headers the dashboard answers (others get 421), wherever it is
   * mounted: host names (`ops.example.com`, any port) or `name:port` pairs;
   * loopback names (`localhost`, `127.0.0.1`, `[::1]`) are always answered.
   * `'any'` turns the check off. It keeps a web page whose name was pointed at
   * this machine (DNS rebinding) from reading the dashboard or posting its
   * forms; behind a proxy, list the name the proxy forwards.
   * @defaultValue loopback names only; `'any'` when `token` or `basicAuth` is set
   */
  allowedHosts?: readonly string[] | 'any';
  /**
   * Where the dashboard is mounted on your server, e.g. `/rescue`: every link
   * and route starts with it.
   * @defaultValue ''
   */
  basePath?: string;
  /**
   * ms between samples of engine.stats(): how soon a browser hears of a
   * change, and the resolution of the overview's chart.
   * @defaultValue 2 000
   */
  sampleInterval?: number;
  /**
   * ms of samples the dashboard keeps for the overview.
   * @defaultValue 15 minutes
   */
  history?: number;
  /**
   * ms between a browser's refreshes when Server-Sent Events do not get through.
   * @defaultValue 5 000
   */
  pollInterval?: number;
  /** The clock pages tell ages and "in 3 min" by. @defaultValue the system clock */
  clock?: Clock;
  /**
   * Told about failures: a sample or a page that could not read the queue.
   * @defaultValue one line on stderr (the error's name and, except for
   * RescueErrors, which may quote labels, its message)
   */
  onError?: (error: unknown) => void;
  /**
   * A Prometheus registry (prom-client's `Registry`, or anything with
   * `metrics()` and `contentType`) served at `/metrics`, behind the same
   * token or basic auth as the pages: register the engine's metrics in it
   * with registerMetrics (rescue-engine/metrics).
   * @defaultValue none (no /metrics)
   */
  metrics?: MetricsSource;
}

/** MetricsSource is what /metrics serves: the text exposition of a registry. */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

export interface ResolvedDashboardOptions {
  readonly write: boolean;
  readonly token: string | undefined;
  readonly basicAuth: BasicAuth | undefined;
  /** Whether allowedHosts was given (listen() then adds no names of its own). */
  readonly hostsGiven: boolean;
  readonly allowedHosts: AllowedHosts;
  readonly basePath: string;
  readonly sampleInterval: number;
  readonly history: number;
  readonly pollInterval: number;
  readonly clock: Clock;
  readonly onError: (error: unknown) => void;
  readonly metrics: MetricsSource | undefined;
}

export const dashboardDefaults = {
  write: false,
  basePath: '',
  sampleInterval: 2_000,
  history: 15 * 60_000,
  pollInterval: 5_000,
} as const;

/** The shortest token accepted. */
export const tokenLeast = 16;

/** logError writes a failure to stderr without label values. */
function logError(error: unknown): void {
  if (error instanceof RescueError)
    console.error(`rescue dashboard: ${error.name} (${error.code})`);
  else if (error instanceof Error)
    console.error(`rescue dashboard: ${error.name}: ${error.message}`);
  else console.error('rescue dashboard: a failure that is not an Error');
}

export function resolveDashboardOptions(options: unknown): ResolvedDashboardOptions {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object')
    throw new TypeError(`createDashboard: options must be an object; got ${describe(options)}`);
  const given = options as DashboardOptions;
  const write = requireBoolean(option('write'), given.write ?? dashboardDefaults.write);
  const { token, basicAuth } = given;
  if (token !== undefined) {
    if (typeof token !== 'string')
      throw new TypeError(
        `createDashboard: option "token" must be a string; got ${describe(token)}`,
      );
    if (token.length < tokenLeast || /\s/.test(token))
      throw new RangeError(
        `createDashboard: option "token" must be at least ${tokenLeast} characters without blanks`,
      );
  }
  if (basicAuth !== undefined) {
    if (
      typeof basicAuth !== 'object' ||
      typeof basicAuth.username !== 'string' ||
      typeof basicAuth.password !== 'string'
    )
      throw new TypeError('createDashboard: option "basicAuth" must be { username, password }');
    if (basicAuth.username === '' || basicAuth.username.includes(':') || basicAuth.password === '')
      throw new RangeError(
        'createDashboard: option "basicAuth" needs a user name without ":" and a password',
      );
  }
  const basePath = given.basePath ?? dashboardDefaults.basePath;
  if (typeof basePath !== 'string' || !/^(\/[A-Za-z0-9._~-]+)*$/.test(basePath))
    throw new TypeError(
      `createDashboard: option "basePath" must be '' or like '/rescue' (no trailing slash); got ${describe(basePath)}`,
    );
  const clock = requireFunction(option('clock'), given.clock ?? systemClock);
  const { metrics } = given;
  const source = metrics as Partial<MetricsSource> | null | undefined; // as given, unchecked
  if (
    source !== undefined &&
    (typeof source !== 'object' ||
      source === null ||
      typeof source.metrics !== 'function' ||
      typeof source.contentType !== 'string')
  )
    throw new TypeError(
      'createDashboard: option "metrics" must be a registry with metrics() and contentType',
    );
  const onError = requireFunction(option('onError'), given.onError ?? logError);
  const allowedHosts = readAllowedHosts(
    given.allowedHosts,
    token !== undefined || basicAuth !== undefined,
  );
  return {
    write,
    token,
    basicAuth: basicAuth === undefined ? undefined : { ...basicAuth },
    hostsGiven: given.allowedHosts !== undefined,
    allowedHosts,
    basePath,
    sampleInterval: milliseconds(
      'sampleInterval',
      given.sampleInterval,
      dashboardDefaults.sampleInterval,
      50,
    ),
    history: milliseconds('history', given.history, dashboardDefaults.history, 60_000),
    pollInterval: milliseconds(
      'pollInterval',
      given.pollInterval,
      dashboardDefaults.pollInterval,
      100,
    ),
    clock,
    onError,
    metrics,
  };
}

/** option names a createDashboard option in messages. */
function option(name: string): string {
  return `createDashboard: option "${name}"`;
}

function milliseconds(name: string, value: unknown, fallback: number, least: number): number {
  return value === undefined ? fallback : requireInteger(option(name), value, timerBounds(least));
}
