import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { commands } from '../../lib/cli/commands/index.js';
import { oneLineError, rescue } from '../harness/cli.js';
import { unusedPort } from '../harness/ports.js';

// The built `rescue` bin as a user meets it: help, the command line's
// mistakes (exit 2, before any connection), and a Redis it cannot reach
// (exit 3, fast, never a hang). Each spawn costs a Node start, so cases run
// side by side.

describe('rescue: help', () => {
  it('lists every command of the dispatch table and the exit codes; no command is a usage error', async () => {
    const [help, none, word] = await Promise.all([
      rescue(['--help']),
      rescue([]),
      rescue(['help']),
    ]);
    expect(help.code).toBe(0);
    for (const name of Object.keys(commands)) expect(help.stdout).toContain(`  ${name}  `);
    expect(help.stdout).toMatch(
      /Exit codes: 0 ok, 1 failed .* 2 usage error,\s+3 cannot reach Redis, 4 task not found/,
    );
    expect(word).toEqual(help);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage: rescue <command>');
  });

  it('gives each command its own --help, without a Redis', async () => {
    const env = { REDIS_URL: `redis://127.0.0.1:${await unusedPort()}` };
    const names = Object.keys(commands);
    const results = await Promise.all(
      names.map((name) => rescue([...name.split(' '), '--help'], { env })),
    );
    results.forEach((result, index) => {
      const name = names[index] ?? '';
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({
        name,
        code: 0,
        stderr: '',
      });
      expect(result.stdout).toMatch(new RegExp(`^Usage: rescue ${name}\\b`));
      expect(result.stdout).toContain('--redis <url>');
      expect(result.stdout).toContain('--json');
    });
    const group = await rescue(['tasks', '--help'], { env });
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('tasks list');
    expect(group.stdout).not.toContain('templates');
  });
});

describe('rescue: usage errors', () => {
  // every usage error is in spec/cli/usage.spec.ts (in process); here, that the bin exits 2
  // with one line, before connecting (REDIS_URL names a port nothing listens on)
  it('exits 2 with one line on stderr for a bad flag, a bad value and a missing --yes', async () => {
    const env = { REDIS_URL: `redis://127.0.0.1:${await unusedPort()}` };
    const [flag, value, yes] = await Promise.all([
      rescue(['stats', '--bogus'], { env }),
      rescue(['tasks', 'list', '--limit', '0'], { env }),
      rescue(['tasks', 'delete', '1697760001000-000000000042'], { env }),
    ]);
    expect([flag.code, value.code, yes.code]).toEqual([2, 2, 2]);
    expect(oneLineError(flag)).toBe("rescue: Unknown option '--bogus'");
    expect(oneLineError(value)).toBe(
      'rescue: --limit must be a whole number from 1 to 1000; got "0"',
    );
    expect(oneLineError(yes)).toMatch(/^rescue: tasks delete changes the queue: add --yes/);
  });
});

describe('rescue: a Redis it cannot reach (exit 3)', () => {
  const everyCommand = [
    ['stats'],
    ['tasks', 'list'],
    ['tasks', 'show', '1697760001000-000000000042'],
    ['tasks', 'create', '--meta', 'k=v'],
    ['tasks', 'delete', '1697760001000-000000000042', '--yes'],
    ['tasks', 'reset', '1697760001000-000000000042'],
    ['templates'],
    ['workers'],
    ['tail'],
    ['doctor'],
    ['repair', '--yes'],
  ];

  it('fails every command with one line naming the address, from --redis or REDIS_URL', async () => {
    const port = await unusedPort();
    const results = await Promise.all(
      everyCommand.map((args, index) =>
        index % 2 === 0
          ? rescue([...args, '--redis', `redis://127.0.0.1:${port}`])
          : rescue(args, { env: { REDIS_URL: `redis://127.0.0.1:${port}` } }),
      ),
    );
    results.forEach((result, index) => {
      expect({ args: everyCommand[index], code: result.code }).toEqual({
        args: everyCommand[index],
        code: 3,
      });
      expect(oneLineError(result)).toBe(
        `rescue: cannot reach Redis at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
    });
  });

  it('gives up on a server that accepts the connection and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as { port: number };
    try {
      const result = await rescue(['stats', '--redis', `redis://127.0.0.1:${port}`]);
      expect(result.code).toBe(3);
      expect(oneLineError(result)).toBe(
        `rescue: cannot reach Redis at 127.0.0.1:${port}: no answer within 3000 ms`,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
