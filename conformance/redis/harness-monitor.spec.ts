import { monitoredArgs } from '../harness/monitor.js';
import { useQueue } from '../harness/queue.js';
import { monitorQueue } from '../harness/redis.js';

// The harness's MONITOR is what several tests count commands with: it must
// see every command sent between its start and its stop, with its arguments
// byte for byte.
describe('the harness monitor', () => {
  const queue = useQueue();

  it('hands on each command with its arguments exactly as sent', async () => {
    const q = queue();
    const key = `${q.prefix}:odd "key" \\ é\n\t\x01`;
    const seen: string[][] = [];
    const monitor = await monitorQueue(q.redis, (args) => {
      if (args[0]?.toLowerCase() === 'set' && args[1]?.startsWith(q.prefix)) seen.push(args);
    });
    try {
      await q.redis.set(key, 'v "1"');
    } finally {
      await monitor.stop();
    }
    expect(seen).toEqual([['set', key, 'v "1"']]);
  });

  it('starts cleanly while the server is busy with other clients, time after time', async () => {
    const q = queue();
    let running = true;
    const traffic = (async () => {
      while (running) await q.redis.set(`${q.prefix}:busy`, '1');
    })();
    try {
      for (let round = 0; round < 20; round++) {
        let counted = 0;
        const monitor = await monitorQueue(q.redis, () => counted++);
        await until(() => counted > 0);
        await monitor.stop();
      }
    } finally {
      running = false;
      await traffic;
    }
    expect(running).toBe(false);
  });

  it('reads the quoted arguments of a monitored line, escapes and all', () => {
    expect(monitoredArgs('+1700000000.1 [0 lua] "hset" "a\\"b" "\\xc3\\xa9\\\\\\n"')).toEqual([
      'hset',
      'a"b',
      'é\\\n',
    ]);
    expect(monitoredArgs('+OK')).toBeUndefined();
  });
});

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the monitor saw nothing within 3 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
