import { runCli } from '../../lib/cli/run.js';
import type { CliIo } from '../../lib/cli/io.js';

// The command line's mistakes, through runCli in this process (conformance/cli/*.spec.ts
// run the built bin): each is a usage error, exit 2, one line on stderr, found
// before anything connects: REDIS_URL names a port nothing listens on, so a
// command that connected would exit 3 instead.

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: { REDIS_URL: 'redis://127.0.0.1:1' },
    stopped: new Promise(() => {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

const id = '1697760001000-000000000042';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('rescue usage errors', () => {
  const cases: { name: string; args: string[]; error: string | RegExp }[] = [
    {
      name: 'an unknown command',
      args: ['frobnicate'],
      error: 'unknown command "frobnicate"; see rescue --help',
    },
    {
      name: 'an unknown subcommand',
      args: ['tasks', 'frob'],
      error: 'unknown command "tasks frob"; see rescue --help',
    },
    { name: 'an unknown flag', args: ['stats', '--bogus'], error: "Unknown option '--bogus'" },
    {
      name: 'a flag without its value',
      args: ['tasks', 'list', '--limit'],
      error: /Option '--limit <value>' argument missing/,
    },
    { name: 'a value given to a switch', args: ['stats', '--json=yes'], error: /--json/ },
    {
      name: 'a limit out of range',
      args: ['tasks', 'list', '--limit', '1001'],
      error: '--limit must be a whole number from 1 to 1000; got "1001"',
    },
    {
      name: 'a limit that is not a number',
      args: ['tasks', 'list', '--limit', '1e3'],
      error: '--limit must be a whole number from 1 to 1000; got "1e3"',
    },
    {
      name: 'an unknown state',
      args: ['tasks', 'list', '--state', 'done'],
      error:
        '--state must be one of all, claimable, owned, waiting, halted, cron, gate, broadcast, held; got "done"',
    },
    {
      name: 'a label without =',
      args: ['tasks', 'list', '--meta', 'kind'],
      error: '--meta takes key=value; got "kind"',
    },
    {
      name: 'a label with an empty key',
      args: ['tasks', 'list', '--gate', '=v'],
      error: '--gate takes key=value; got "=v"',
    },
    {
      name: 'a query that is not JSON',
      args: ['tasks', 'list', '--query', '{kind'],
      error: /^--query is not JSON: /,
    },
    {
      name: 'a query that is not an object',
      args: ['tasks', 'list', '--query', '[1]'],
      error: /^--query must be a JSON object of label maps/,
    },
    {
      name: 'a query map that does not exist',
      args: ['tasks', 'list', '--query', '{"labels":{}}'],
      error: /^--query: "labels" is not a label map/,
    },
    {
      name: 'show without an id',
      args: ['tasks', 'show'],
      error: 'missing argument: rescue tasks show <id> [options]',
    },
    {
      name: 'show with two ids',
      args: ['tasks', 'show', id, 'x'],
      error: 'unexpected argument "x": rescue tasks show <id> [options]',
    },
    {
      name: 'show of something not an id',
      args: ['tasks', 'show', '42'],
      error: /^"42" is not a task id/,
    },
    {
      name: 'create without labels',
      args: ['tasks', 'create'],
      error: 'tasks create needs labels: --meta k=v ... or --task <json>',
    },
    {
      name: 'create from JSON that is not',
      args: ['tasks', 'create', '--task', 'meta'],
      error: /^--task is not JSON/,
    },
    {
      name: 'delete without --yes',
      args: ['tasks', 'delete', id],
      error:
        'tasks delete changes the queue: add --yes to do it, or --dry-run to list what it would do',
    },
    {
      name: 'delete of nothing',
      args: ['tasks', 'delete', '--yes'],
      error: 'tasks delete needs a task id or a label query (--meta k=v ..., --query)',
    },
    {
      name: 'delete with an id and a query',
      args: ['tasks', 'delete', id, '--meta', 'k=v', '--yes'],
      error: 'tasks delete takes a task id or a query, not both',
    },
    {
      name: 'a bulk delete with --yes and --dry-run',
      args: ['tasks', 'delete', '--meta', 'k=v', '--yes', '--dry-run'],
      error: '--dry-run and --yes exclude each other',
    },
    {
      name: 'a bulk reset without --yes',
      args: ['tasks', 'reset', '--meta', 'k=v'],
      error: /^tasks reset --meta \.\.\. changes the queue: add --yes/,
    },
    {
      name: 'reset of something not an id',
      args: ['tasks', 'reset', 'x-1'],
      error: /^"x-1" is not a task id/,
    },
    {
      name: 'repair without --yes',
      args: ['repair'],
      error: "repair rebuilds the queue's indexes: stop the workers, then add --yes",
    },
    {
      name: 'tail of an unknown kind',
      args: ['tail', '--kind', 'exploded'],
      error: /^--kind must be one of created, emitted, claimed/,
    },
    {
      name: 'tail polling too often',
      args: ['tail', '-f', '--interval', '10'],
      error: '--interval must be a whole number from 50 to 60000; got "10"',
    },
    {
      name: 'a Redis URL that is not one',
      args: ['stats', '--redis', 'http://127.0.0.1:6379'],
      error: '--redis must be a redis:// or rediss:// URL; got "http://127.0.0.1:6379"',
    },
    {
      name: 'a queue the engine refuses',
      args: ['stats', '--queue', 'a}b'],
      error: /^--queue must not contain "}"/,
    },
    {
      name: 'an empty queue name',
      args: ['workers', '--queue', ''],
      error: /^--queue must be a non-empty string/,
    },
  ];

  it.each(cases)('$name', async ({ args, error }) => {
    const { code, out, err } = await run(args);
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^rescue: /);
    const message = (err[0] ?? '').slice('rescue: '.length);
    expect(message).toMatch(typeof error === 'string' ? new RegExp(`^${escape(error)}$`) : error);
  });

  it('prints the help of a group on stderr when its command is missing, exit 2', async () => {
    const { code, out, err } = await run(['tasks']);
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err.join('\n')).toMatch(/^Usage: rescue tasks <command> \[options\]/);
  });

  it('takes the common flags before the command words too', async () => {
    const { code, err } = await run(['--queue', 'a}b', '--json', 'stats']);
    expect(code).toBe(2);
    expect(err[0]).toMatch(/^rescue: --queue must not contain "}"/);
  });
});
