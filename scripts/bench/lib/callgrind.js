// A redis-server under valgrind's callgrind and a counter of the instructions
// it executes for its clients: the same count for the same work whatever else
// the host does. Counted are the functions that serve requests (reading and
// running commands, scripts and the commands they call, writing replies and
// messages); not the timers (serverCron, expiry cycles), whose share would
// grow with the time a phase takes on a busy host rather than with its work.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * startCallgrindRedis starts redis-server under callgrind on a free loopback
 * port (no saving, its files in the temporary folder) and returns its URL,
 * `counted(action)` (the instructions Redis executed while the action ran)
 * and `stop()`.
 */
export async function startCallgrindRedis() {
  const port = await freePort();
  const output = join(tmpdir(), `rescue-callgrind-${port}`);
  const server = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${output}`,
      '--collect-atstart=no',
      ...servingFunctions.map((name) => `--toggle-collect=${name}`),
      process.env.BENCH_REDIS_SERVER ?? 'redis-server',
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      tmpdir(),
    ],
    { stdio: 'ignore' },
  );
  server.on('error', (error) => {
    console.error(`valgrind could not start (${error.message}): apt-get install -y valgrind`);
    process.exit(1);
  });
  await listening(port);

  const lastDumpTotal = () => {
    const dumps = readdirSync(tmpdir())
      .filter((file) => file.startsWith(`rescue-callgrind-${port}.`))
      .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
    const text = readFileSync(join(tmpdir(), dumps.at(-1)), 'utf8');
    const total = /^(?:totals|summary): (\d+)/m.exec(text);
    if (total === null) throw new Error('callgrind wrote no totals');
    return Number(total[1]);
  };
  const raw = async (action) => {
    execFileSync('callgrind_control', ['--zero', String(server.pid)], { stdio: 'ignore' });
    const started = performance.now();
    await action();
    const ms = performance.now() - started;
    execFileSync('callgrind_control', ['--dump', String(server.pid)], { stdio: 'ignore' });
    return { total: lastDumpTotal(), ms };
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    /** counted runs an action and returns the instructions Redis executed meanwhile for its clients. */
    async counted(action) {
      return (await raw(action)).total;
    },
    stop() {
      server.kill('SIGKILL');
      if (process.env.BENCH_KEEP_DUMPS !== undefined) return;
      for (const file of readdirSync(tmpdir())) {
        if (file.startsWith(`rescue-callgrind-${port}`)) rmSync(join(tmpdir(), file));
      }
    },
  };
}

/**
 * The functions in which Redis serves its clients, none called inside
 * another (a toggle inside a toggle would stop the count): a request read and
 * run (with any clients it unblocks), the commands of clients unblocked
 * meanwhile, and replies and messages written. Debian's redis-server exports
 * them (its dynamic symbol table), though it is stripped.
 */
const servingFunctions = ['readQueryFromClient', 'processUnblockedClients', 'writeToClient'];

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
}

/** listening waits until the server under valgrind (slow to start) accepts connections. */
async function listening(target) {
  for (let tries = 0; tries < 200; tries++) {
    const open = await new Promise((resolve) => {
      const socket = createConnection(target, '127.0.0.1');
      socket.on('connect', () => resolve(socket.destroy() ?? true));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('redis-server under callgrind did not start within 50 s');
}
