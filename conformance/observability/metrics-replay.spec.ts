import { Registry } from 'prom-client';
import { deleteThenSearch } from '../../lib/engine/runtime.js';
import { noFilters } from '../../lib/engine/filters.js';
import { registerMetrics } from '../../lib/metrics/index.js';
import type { Task } from '../../lib/task/task.js';
import { claim, scrape } from '../harness/metrics.js';
import { replyDropper } from '../harness/proxy.js';
import { redisUrl } from '../harness/queue.js';
import { useWorkerQueue } from '../harness/worker.js';

// A write whose reply was lost is sent again by ioredis and answered from the
// request's kept answer (conformance/redis/idempotent-writes.spec.ts): the
// counts the metrics read from that answer must be the first answer's, counted
// once.

describe('registerMetrics: a reply lost and sent again', () => {
  const queue = useWorkerQueue();

  it.each(['delete', 'deleteSearch'] as const)(
    '%s: the replayed answer counts the gate child and the completion once',
    async (call) => {
      const proxy = await replyDropper(redisUrl());
      try {
        const q = queue();
        const engine = q.engine('one', { redis: proxy.url });
        const registry = new Registry();
        const complete = (task: Task) =>
          call === 'delete'
            ? engine.delete(task)
            : deleteThenSearch(engine, [{ task, filters: noFilters }]);
        await engine.create({ meta: { k: 'warm-up' } });
        await complete(await claim(engine, 'warm-up')); // connected, the script loaded
        registerMetrics(engine, registry);
        await engine.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
        await engine.create({ gate: { g: 'trigger' }, meta: { k: 'trig' } });
        const copy = await claim(engine, 'trig');
        proxy.dropNextReply();
        await complete(copy);
        expect(proxy.dropped).toBe(1);
        const samples = await scrape(registry, q.name);
        expect(samples['rescue_tasks_created_total{source="gate"}']).toBe(1);
        expect(samples['rescue_tasks_completed_total']).toBe(1);
        expect(samples['rescue_queue_records']).toBe(2); // the template and its child
      } finally {
        await proxy.close();
      }
    },
  );
});
