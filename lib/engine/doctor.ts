import { defaultLeaseMarginMs } from './options.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { isClusterClient } from './connection.js';
import type { QueueKeys } from './keys.js';
import { layoutVersion } from './keys.js';
import { readLayout } from './layout.js';
import { runScript, scripts } from './lua/scripts.js';
import { aclProbes } from './acl.js';
import { argv } from './lua/arguments.js';

/** DoctorStatus: `ok`, `warn` (works, but something can be lost or is unknown), `fail` (fix it). */
export type DoctorStatus = 'ok' | 'warn' | 'fail';

/** DoctorCheck is one finding of `doctor()`: what was checked, how it came out, and why, in one line. */
export interface DoctorCheck {
  readonly name: DoctorCheckName;
  readonly status: DoctorStatus;
  readonly message: string;
}

/** DoctorReport is every check of `doctor()`, in a fixed order, and the worst status among them. */
export interface DoctorReport {
  readonly status: DoctorStatus;
  readonly checks: readonly DoctorCheck[];
}

/** The checks, in the order the report lists them. */
export const doctorCheckNames = [
  'server-version',
  'cluster',
  'maxmemory-policy',
  'persistence',
  'clock',
  'layout',
  'acl',
] as const;

export type DoctorCheckName = (typeof doctorCheckNames)[number];

/** The oldest Redis the engine supports: the one it is built and tested on (7.0). */
const minimumVersion = [7, 0] as const;

/**
 * runDoctor checks the Redis an engine talks to against what the engine
 * needs to keep its guarantees, reading only (INFO, CONFIG GET, TIME, ACL
 * WHOAMI / DRYRUN, the queue's layout key). A check whose command the
 * server refuses (an ACL, a managed Redis) says "unknown" as a warning.
 * Connection failures reject, as for every other call.
 */
export async function runDoctor(context: EngineContext): Promise<DoctorReport> {
  assertOpen(context, 'doctor');
  const client = context.connection.client;
  const info = (section: string) => refusedAsUndefined(client.info(section)).then(infoFields);
  const config = async (name: string) => {
    const reply = (await refusedAsUndefined(client.call('CONFIG', 'GET', name))) as
      string[] | undefined;
    return reply === undefined ? undefined : (reply[1] ?? '');
  };

  const server = await info('server');
  const checks: DoctorCheck[] = [
    judgeVersion(server?.get('redis_version')),
    judgeCluster((await info('cluster'))?.get('cluster_enabled'), isClusterClient(client)),
    await memoryPolicy(info, config),
    await persistence(info, config),
    await clockSkew(context),
    judgeLayout(await refusedAsUndefined(readLayout(context)), context.keys.layout),
    await aclCheck(context),
  ];
  return { status: worstOf(checks.map((check) => check.status)), checks };
}

/** worstOf is the most severe status: fail over warn over ok. */
export function worstOf(statuses: readonly DoctorStatus[]): DoctorStatus {
  if (statuses.includes('fail')) return 'fail';
  return statuses.includes('warn') ? 'warn' : 'ok';
}

export function judgeVersion(version: string | undefined): DoctorCheck {
  const name = 'server-version';
  if (version === undefined)
    return { name, status: 'warn', message: 'unknown: INFO server is not allowed' };
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor, needMinor] = minimumVersion;
  const enough = major > needMajor || (major === needMajor && minor >= needMinor);
  return enough
    ? { name, status: 'ok', message: `Redis ${version}` }
    : {
        name,
        status: 'fail',
        message: `Redis ${version}: the engine needs ${needMajor}.${needMinor} or later`,
      };
}

export function judgeCluster(enabled: string | undefined, clusterClient: boolean): DoctorCheck {
  const name = 'cluster';
  if (enabled === undefined)
    return { name, status: 'warn', message: 'unknown: INFO cluster is not allowed' };
  if (enabled !== '1') return { name, status: 'ok', message: 'standalone server (no cluster)' };
  return clusterClient
    ? {
        name,
        status: 'ok',
        message: "cluster mode: the queue's keys share one hash slot ({<queue>} hash tag)",
      }
    : {
        name,
        status: 'fail',
        message:
          'the server runs in cluster mode but the engine has a plain client: pass an ioredis Cluster as `redis`',
      };
}

type Info = (section: string) => Promise<Map<string, string> | undefined>;
type Config = (name: string) => Promise<string | undefined>;

async function memoryPolicy(info: Info, config: Config): Promise<DoctorCheck> {
  const memory = await info('memory');
  const policy = memory?.get('maxmemory_policy') ?? (await config('maxmemory-policy'));
  const maxmemory = memory?.get('maxmemory') ?? (await config('maxmemory'));
  return judgeMemoryPolicy(policy, maxmemory);
}

export function judgeMemoryPolicy(
  policy: string | undefined,
  maxmemory: string | undefined,
): DoctorCheck {
  const name = 'maxmemory-policy';
  if (policy === undefined)
    return {
      name,
      status: 'warn',
      message: 'unknown: neither INFO memory nor CONFIG GET is allowed; it must be noeviction',
    };
  if (policy === 'noeviction')
    return {
      name,
      status: 'ok',
      message: 'noeviction: a full Redis refuses writes instead of dropping keys',
    };
  const limit = maxmemory === '0' ? ' (maxmemory is 0 now: no limit yet)' : '';
  if (policy.startsWith('volatile-'))
    return {
      name,
      status: 'warn',
      message: `${policy}${limit}: only keys with a TTL are evicted (the queue's keys have none, its chore locks do); set noeviction`,
    };
  return {
    name,
    status: 'fail',
    message: `${policy}${limit}: a full Redis evicts any key, tasks and indexes included; set maxmemory-policy noeviction`,
  };
}

async function persistence(info: Info, config: Config): Promise<DoctorCheck> {
  const appendonly = await config('appendonly');
  if (appendonly === undefined) {
    // CONFIG is refused: INFO still tells whether AOF is on, not how it syncs
    const aof = (await info('persistence'))?.get('aof_enabled');
    return judgePersistence({ aof: aof === undefined ? undefined : aof === '1' });
  }
  return judgePersistence({
    aof: appendonly === 'yes',
    appendfsync: await config('appendfsync'),
    save: await config('save'),
  });
}

/** What is known about a server's persistence; undefined where the server would not say. */
export interface PersistenceFacts {
  aof: boolean | undefined;
  appendfsync?: string | undefined;
  save?: string | undefined;
}

export function judgePersistence({ aof, appendfsync, save }: PersistenceFacts): DoctorCheck {
  const name = 'persistence';
  if (aof === undefined)
    return { name, status: 'warn', message: 'unknown: neither CONFIG GET nor INFO is allowed' };
  if (aof) {
    switch (appendfsync) {
      case 'always':
        return {
          name,
          status: 'ok',
          message: 'AOF, appendfsync always: a write Redis acknowledged survives a crash',
        };
      case 'everysec':
        return {
          name,
          status: 'warn',
          message:
            'AOF, appendfsync everysec: a crash of the machine loses up to about 1 s of acknowledged writes (created tasks vanish, completed ones run again); a crash of Redis alone loses none while the disk keeps up',
        };
      case 'no':
        return {
          name,
          status: 'warn',
          message:
            'AOF, appendfsync no: a crash of the machine loses what the OS had not written to disk yet (often up to 30 s of acknowledged writes)',
        };
      default:
        return {
          name,
          status: 'warn',
          message: 'AOF is on; its appendfsync is unknown (CONFIG GET is not allowed)',
        };
    }
  }
  if (save === undefined)
    return {
      name,
      status: 'warn',
      message: 'AOF is off; whether RDB snapshots are taken is unknown (CONFIG GET is not allowed)',
    };
  if (save.trim() !== '')
    return {
      name,
      status: 'warn',
      message: `RDB snapshots only (save ${save}): a crash loses every write since the last snapshot`,
    };
  return {
    name,
    status: 'warn',
    message: 'no persistence: a restart of Redis loses the whole queue',
  };
}

async function clockSkew(context: EngineContext): Promise<DoctorCheck> {
  const before = readClock(context.clock).getTime();
  const time = await refusedAsUndefined(context.connection.client.time());
  const after = readClock(context.clock).getTime();
  if (time === undefined)
    return { name: 'clock', status: 'warn', message: 'unknown: TIME is not allowed' };
  const [seconds = '0', micros = '0'] = time.map(String);
  const serverMs = Number(seconds) * 1000 + Number(micros) / 1000;
  return judgeClock(
    (before + after) / 2 - serverMs,
    context.options.expiry,
    context.options.clockSkew,
  );
}

/**
 * judgeClock rates the engine clock's offset from Redis's TIME. Every engine
 * of a queue stamps its scripts with its own clock, so what matters is how
 * far engines are apart; Redis's clock is the reference all of them can be
 * compared with. Two engines may be as far apart as the default lease margin
 * (a worker stops its handler that long before its lease end) plus the
 * engine's `clockSkew` (expire waits that long past a lease end) before one
 * revokes a lease the other still works under: each engine may be off by half
 * of that, and by a quarter deserves a look at NTP.
 */
export function judgeClock(offsetMs: number, expiryMs: number, clockSkewMs = 0): DoctorCheck {
  const name = 'clock';
  const size = Math.abs(Math.round(offsetMs));
  const side = offsetMs >= 0 ? 'ahead of' : 'behind';
  const toleranceMs = defaultLeaseMarginMs(expiryMs) + clockSkewMs;
  const text = `the engine clock is ${size} ms ${side} Redis TIME (engines may be ${toleranceMs} ms apart: lease margin ${defaultLeaseMarginMs(expiryMs)} ms + clockSkew ${clockSkewMs} ms)`;
  if (size > toleranceMs / 2)
    return {
      name,
      status: 'fail',
      message: `${text}: engines this far apart revoke leases their owners still hold; sync clocks (NTP) or raise clockSkew`,
    };
  if (size > toleranceMs / 4)
    return { name, status: 'warn', message: `${text}: keep engines' clocks in sync (NTP)` };
  return { name, status: 'ok', message: text };
}

export function judgeLayout(stored: string | null | undefined, key: string): DoctorCheck {
  const name = 'layout';
  if (stored === undefined)
    return {
      name,
      status: 'fail',
      message: `the queue's layout key ${key} cannot be read: the server refused GET (an ACL without the queue's keys?)`,
    };
  if (stored === null)
    return {
      name,
      status: 'ok',
      message: `no layout stored yet (${key}): the first create writes "${layoutVersion}"`,
    };
  if (stored === layoutVersion)
    return { name, status: 'ok', message: `layout "${stored}", the one this engine reads` };
  return {
    name,
    status: 'fail',
    message: `the queue has layout "${stored}"; this engine reads "${layoutVersion}" only and refuses it`,
  };
}

async function aclCheck(context: EngineContext): Promise<DoctorCheck> {
  const name = 'acl';
  const client = context.connection.client;
  const user = (await refusedAsUndefined(client.call('ACL', 'WHOAMI'))) as string | undefined;
  const probes = doctorProbes(context.keys);
  const dryRun = user === undefined ? undefined : await dryRunDenials(context, user, probes);
  const denied = dryRun ?? (await scriptDenials(context, probes));
  const who = user === undefined ? "this connection's user" : `user "${user}"`;
  if (denied === undefined) {
    return {
      name,
      status: 'warn',
      message: `unknown: neither ACL DRYRUN nor EVAL (redis.acl_check_cmd) is allowed for ${who}`,
    };
  }
  const how =
    dryRun === undefined
      ? 'checked with redis.acl_check_cmd: ACL DRYRUN is not allowed'
      : 'checked with ACL DRYRUN';
  if (denied.length === 0)
    return {
      name,
      status: 'ok',
      message: `${who} may run every command the engine uses (${probes.length} ${how})`,
    };
  // without functions the engine runs its scripts with EVALSHA and EVAL
  if (denied.every((entry) => /^(FCALL|FUNCTION) /.test(entry)))
    return {
      name,
      status: 'warn',
      message:
        `${who} may not run FCALL or FUNCTION LOAD (${how}): the engine runs its scripts with EVALSHA ` +
        'and EVAL, which define every function of a script again on each call; grant +fcall +function|load',
    };
  return {
    name,
    status: 'fail',
    message: `${who} may not run ${denied.length} of the commands the engine uses (${how}): ${denied.join('; ')}`,
  };
}

/** dryRunDenials asks ACL DRYRUN about each probe; undefined when ACL DRYRUN is refused. */
async function dryRunDenials(
  context: EngineContext,
  user: string,
  probes: readonly (readonly string[])[],
): Promise<string[] | undefined> {
  const denied: string[] = [];
  for (const probe of probes) {
    const answer = (await refusedAsUndefined(
      context.connection.client.call('ACL', 'DRYRUN', user, ...probe),
    )) as string | undefined;
    if (answer === undefined) return undefined;
    if (answer !== 'OK') denied.push(`${commandName(probe)} (${answer})`);
  }
  return denied;
}

/**
 * scriptDenials asks the server, from a read-only script, whether the
 * connection's own user may run each probe (redis.acl_check_cmd): the check a
 * least-privilege user can make, since EVAL is one of the engine's commands.
 * Undefined when the script is refused too.
 */
async function scriptDenials(
  context: EngineContext,
  probes: readonly (readonly string[])[],
): Promise<string[] | undefined> {
  const script = context.scripts.aclCheck;
  let positions: unknown;
  try {
    positions = await runScript(
      context.connection.client,
      script,
      context.keys,
      argv('acl_check', { probes: JSON.stringify(probes) }),
    );
  } catch (error) {
    if (error instanceof Error && error.name === 'ReplyError') return undefined;
    throw error;
  }
  if (!Array.isArray(positions)) return undefined;
  return positions.map((position) => {
    const probe = probes[Number(position) - 1] ?? [];
    return `${commandName(probe)} (denied)`;
  });
}

/** Commands whose first argument is a subcommand, which an ACL allows or denies apart. */
const containerCommands = new Set(['ACL', 'CLIENT', 'CLUSTER', 'CONFIG', 'FUNCTION', 'PUBSUB']);

/** commandName names a probe's command as the ACL does: `PUBSUB NUMSUB`, `HSET`. */
function commandName(probe: readonly string[]): string {
  return probe.slice(0, containerCommands.has(probe[0] ?? '') ? 2 : 1).join(' ');
}

/**
 * doctorProbes lists, with arguments of the right arity on the queue's own
 * keys and channels, every command of the engine's ACL rule set (acl.ts):
 * the scripts (EVALSHA, EVAL when the server lost them) and the commands
 * they run (ACL checks those too), the worker's wake-up subscription and
 * progress messages, the chore locks (Redlock's scripts), the few direct
 * reads, and what ioredis sends on its own.
 */
export function doctorProbes(keys: QueueKeys): [string, ...string[]][] {
  return aclProbes(keys, scripts.search.sha, scripts.search.library.name);
}

/** refusedAsUndefined: a command the server refuses (an error reply: NOPERM, unknown command) gives undefined. */
async function refusedAsUndefined<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof Error && error.name === 'ReplyError') return undefined;
    throw error;
  }
}

/** infoFields reads `key:value` lines of an INFO reply. */
function infoFields(text: string | undefined): Map<string, string> | undefined {
  if (text === undefined) return undefined;
  const fields = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}
