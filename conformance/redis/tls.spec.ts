import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../lib/engine/engine.js';
import { Label } from '../../lib/task/label.js';
import { startRedisServer, type RedisServer } from '../../lib/testing/redis-server.js';
import { Worker } from '../../lib/worker/worker.js';
import { unusedPort } from '../harness/ports.js';
import { resolved, until } from '../harness/worker.js';

// TLS: a throwaway CA and a server certificate made by openssl, a
// redis-server that speaks only TLS, and the engine reaching it by rediss://
// and by ioredis `tls` options.
describe('the engine over TLS', () => {
  let dir: string;
  let server: RedisServer;
  let port: number;
  let ca: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rescue-tls-'));
    const file = (name: string) => join(dir, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    // Node checks the name the client asked for against the certificate's subjectAltName
    writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=rescue test CA',
      '-keyout', file('ca.key'), '-out', file('ca.crt')); // prettier-ignore
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost',
      '-keyout', file('server.key'), '-out', file('server.csr')); // prettier-ignore
    openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'),
      '-CAcreateserial', '-days', '1', '-extfile', file('server.ext'), '-out', file('server.crt')); // prettier-ignore
    ca = readFileSync(file('ca.crt'));
    port = await unusedPort();
    // the launcher's plain loopback port stays (its readiness PING uses it); the clients
    // below use only the TLS port
    server = await startRedisServer({
      env: {},
      config: {
        'tls-port': String(port),
        'tls-cert-file': file('server.crt'),
        'tls-key-file': file('server.key'),
        'tls-ca-cert-file': file('ca.crt'),
        'tls-auth-clients': 'no',
      },
    });
  }, 30_000);

  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, searches and deletes with the CA given as ioredis tls options', async () => {
    const engine = new Engine({
      redis: { host: 'localhost', port, tls: { ca, servername: 'localhost' } },
      queue: 'tls',
      worker: 'eon',
    });
    try {
      const created = await engine.create({ meta: { k: 'v' } });
      const claimed = await engine.search();
      expect(claimed?.core?.[Label.Object]).toBe(created.core?.[Label.Object]);
      await engine.delete(claimed!);
      expect(await engine.exists({ meta: { '*': '*' } })).toBe(false);
      expect(engine.listen()).toBe(`localhost:${port}`);
    } finally {
      await engine.close();
    }
  });

  it('runs a Worker over TLS (its wake-up subscription too)', async () => {
    const engine = new Engine({
      redis: { host: 'localhost', port, tls: { ca }, connectionName: 'tls-worker' },
      queue: 'tls-worker',
      worker: 'eon',
    });
    const ensured: string[] = [];
    const worker = new Worker(
      engine,
      [{ filter: () => true, ensure: (task) => resolved(ensured.push(task.meta?.['n'] ?? '')) }],
      { pollInterval: 60_000 },
    );
    try {
      await worker.start();
      for (let n = 0; n < 5; n++) await engine.create({ meta: { n: String(n) } });
      await until(() => ensured.length === 5, 10_000, 'five tasks ensured over TLS');
      expect(ensured.sort()).toEqual(['0', '1', '2', '3', '4']);
    } finally {
      await worker.stop();
      await engine.close();
    }
  });

  /** roundTrip runs create, search and delete in a process of its own, on a URL. */
  function roundTrip(url: string, env: NodeJS.ProcessEnv): { same: boolean; left: boolean } {
    const program = `
      import { Engine } from './dist/index.js';
      setTimeout(() => { process.stderr.write('no answer'); process.exit(3); }, 5000).unref();
      const engine = new Engine({ redis: process.argv[1], queue: 'tls-url', worker: 'eon' });
      const created = await engine.create({ meta: { k: 'v' } });
      const claimed = await engine.search();
      await engine.delete(claimed);
      const left = await engine.exists({ meta: { '*': '*' } });
      await engine.close();
      process.stdout.write(JSON.stringify({ same: claimed.core[process.argv[2]] === created.core[process.argv[2]], left }));
    `;
    const output = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', program, url, Label.Object],
      { cwd: new URL('../..', import.meta.url).pathname, env, timeout: 20_000, stdio: 'pipe' },
    );
    return JSON.parse(output.toString()) as { same: boolean; left: boolean };
  }

  it('takes a rediss:// URL, trusting the CA through NODE_EXTRA_CA_CERTS', () => {
    // a URL carries no CA: a process trusts it the way a deployment would, through
    // Node's CA store, which NODE_EXTRA_CA_CERTS extends when the process starts
    const url = `rediss://localhost:${port}`;
    const trusting = { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.crt') };
    expect(roundTrip(url, trusting)).toEqual({ same: true, left: false });
    // without the CA the certificate is refused: nothing goes over an untrusted connection
    const plain = { ...process.env };
    delete plain['NODE_EXTRA_CA_CERTS'];
    expect(() => roundTrip(url, plain)).toThrow(/no answer|certificate/);
  });
});
