import { QueueLayoutError } from '../../lib/errors.js';
import { layoutVersion } from '../../lib/engine/keys.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { Worker } from '../../lib/worker/worker.js';
import { useQueue } from '../harness/queue.js';
import { expectUnchanged } from '../harness/queue-state.js';

// The `layout` key names the key layout a queue was written with; an engine
// of another layout refuses the queue instead of misreading it.

describe('the queue layout version', () => {
  const queue = useQueue();

  it('is written by the first create and accepted by the engines that read it', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' } });
    expect(await queue().redis.get(queue().key.layout)).toBe(layoutVersion);

    const etw = queue().engine('etw');
    const claimed = await etw.search();
    expect(claimed?.meta).toEqual({ k: 'v' });
    await etw.delete(claimed!);
  });

  it('refuses a queue of another layout: every operation rejects with QueueLayoutError and writes nothing', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' } });
    const stored = await eon.search();
    await queue().redis.set(queue().key.layout, '0-other');

    const other = queue().engine('etw');
    const owned: Task = { ...stored!, core: { ...stored!.core, [Label.Worker]: 'etw' } };
    const calls: [string, () => Promise<unknown>][] = [
      ['create', () => other.create({ meta: { k: 'w' } })],
      ['search', () => other.search()],
      ['delete', () => other.delete(owned)],
      ['extend', () => other.extend(owned)],
      ['cycles', () => other.cycles({ ...owned, core: { ...owned.core, [Label.Cancel]: '3' } })],
      ['exists', () => other.exists({ meta: { '*': '*' } })],
      ['lister', () => other.lister({ meta: { '*': '*' } })],
      ['expire', () => other.expire()],
      ['ticker', () => other.ticker()],
    ];
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      for (const [name, call] of calls) {
        const error: unknown = await call().then(
          () => 'resolved',
          (reason: unknown) => reason,
        );
        expect([name, error]).toEqual([name, expect.any(QueueLayoutError)]);
        expect((error as QueueLayoutError).code).toBe('QUEUE_LAYOUT');
        expect((error as Error).message).toContain('"0-other"');
      }
    });
  });

  it('tells how to move a queue of an older layout and says nothing of it for a newer one', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' } });
    await queue().redis.set(queue().key.layout, String(Number(layoutVersion) - 1));
    await expect(queue().engine('etw').search()).rejects.toThrow(
      /engine\.repair\(\) \(rescue repair\)/,
    );
    await queue().redis.set(queue().key.layout, String(Number(layoutVersion) + 1));
    const error = await queue()
      .engine('eth')
      .search()
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(QueueLayoutError);
    expect((error as Error).message).not.toContain('repair');
  });

  it('refuses Worker.start() on a queue of another layout, and the worker starts once it is fixed', async () => {
    await queue().redis.set(queue().key.layout, '0-other');
    const engine = queue().engine('eon');
    const worker = new Worker(engine, [{ filter: () => true, ensure: () => Promise.resolve() }], {
      background: false,
    });
    await expect(worker.start()).rejects.toBeInstanceOf(QueueLayoutError);
    await worker.stop(); // nothing to stop: the start failed

    // the engine remembers what it read; a new engine reads the fixed key
    await queue().redis.set(queue().key.layout, layoutVersion);
    await expect(engine.search()).rejects.toBeInstanceOf(QueueLayoutError);
    const fixed = new Worker(
      queue().engine('etw'),
      [{ filter: () => true, ensure: () => Promise.resolve() }],
      { background: false },
    );
    await fixed.start();
    await fixed.stop();
    expect(await queue().redis.get(queue().key.layout)).toBe(layoutVersion);
  });
});
