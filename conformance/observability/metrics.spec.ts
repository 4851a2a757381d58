import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { registerMetrics } from '../../lib/metrics/index.js';
import { TaskMetaEmptyError, TaskNotFoundError } from '../../lib/errors.js';
import { releaseTask } from '../../lib/engine/runtime.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { formatTime } from '../../lib/task/time.js';
import { fakeClock } from '../../spec/helpers/clock.js';
import { claim, histogramCounts, pick, scrape } from '../harness/metrics.js';
import { scanKeys } from '../harness/redis.js';
import { next, until, useWorkerQueue } from '../harness/worker.js';

// rescue-engine/metrics against a real Redis: a known workload, then a scrape
// of the registry, checking the value of every metric.

describe('registerMetrics: an engine', () => {
  const queue = useWorkerQueue();

  it('counts a known workload: operations, errors, tasks by source, completions, revocations, halts, and the gauges', async () => {
    const q = queue();
    q.clock.set('2023-10-20T00:00:00Z');
    const engine = q.engine('one');
    const registry = new Registry();
    registerMetrics(engine, registry);

    // seven creates
    await engine.create({ meta: { k: 'a' } });
    await engine.create({ meta: { k: 'b' } });
    await engine.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'c' } });
    await engine.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'tpl' } });
    await engine.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    const trigger = await engine.create({ gate: { g: 'trigger' }, meta: { k: 'trig' } });
    await engine.create({ cron: { [Label.Exact]: '2023-10-20T01:00:00Z' }, meta: { k: 'x' } });
    // the trigger's delete fires the gate template: one child
    await engine.delete(await claim(engine, 'trig'));
    // a paging delete requeues
    const a = await claim(engine, 'a');
    a.sync = { [Label.Paging]: '1' };
    await engine.delete(a);
    // c's lease ends unrenewed: revoked, and halted by its breaker (cancel 1)
    await claim(engine, 'c');
    q.clock.set('2023-10-20T00:01:00Z');
    await engine.ticker(); // the template's tick: one child
    await engine.expire();
    // two rejected calls
    await expect(engine.delete(trigger)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(engine.create({ meta: {} })).rejects.toBeInstanceOf(TaskMetaEmptyError);

    const samples = await scrape(registry, q.name);
    expect(pick(samples, 'rescue_tasks_')).toEqual({
      'rescue_tasks_created_total{source="api"}': 7,
      'rescue_tasks_created_total{source="cron"}': 1,
      'rescue_tasks_created_total{source="gate"}': 1,
      'rescue_tasks_created_total{source="requeue"}': 1,
      rescue_tasks_completed_total: 2,
      rescue_tasks_failed_total: 0,
      rescue_tasks_revoked_total: 1,
      rescue_tasks_halted_total: 1,
      rescue_tasks_retention_deleted_total: 0,
    });
    expect(histogramCounts(samples, 'rescue_engine_operation_duration_seconds')).toEqual({
      'rescue_engine_operation_duration_seconds_count{operation="create"}': 8,
      'rescue_engine_operation_duration_seconds_count{operation="search"}': 3,
      'rescue_engine_operation_duration_seconds_count{operation="delete"}': 3,
      'rescue_engine_operation_duration_seconds_count{operation="ticker"}': 1,
      'rescue_engine_operation_duration_seconds_count{operation="expire"}': 1,
    });
    for (const operation of ['create', 'search', 'delete', 'ticker', 'expire']) {
      const sum = samples[`rescue_engine_operation_duration_seconds_sum{operation="${operation}"}`];
      expect(sum).toBeGreaterThan(0);
      // every call took less than 10 s: all of them are in the last finite bucket
      expect(
        samples[
          `rescue_engine_operation_duration_seconds_bucket{le="10",operation="${operation}"}`
        ],
      ).toBe(samples[`rescue_engine_operation_duration_seconds_count{operation="${operation}"}`]);
    }
    expect(pick(samples, 'rescue_engine_operation_errors_total')).toEqual({
      'rescue_engine_operation_errors_total{code="TASK_META_EMPTY",operation="create"}': 1,
      'rescue_engine_operation_errors_total{code="TASK_NOT_FOUND",operation="delete"}': 1,
    });
    // the queue now: a (requeued), b, the gate's child and the template's
    // child are claimable; c is halted; x waits for 01:00
    expect(pick(samples, 'rescue_queue_')).toEqual({
      'rescue_queue_tasks{state="claimable"}': 4,
      'rescue_queue_tasks{state="owned"}': 0,
      'rescue_queue_tasks{state="waiting"}': 1,
      'rescue_queue_tasks{state="due"}': 0,
      'rescue_queue_tasks{state="halted"}': 1,
      'rescue_queue_tasks{state="cron_template"}': 1,
      'rescue_queue_tasks{state="gate_template"}': 1,
      'rescue_queue_tasks{state="broadcast"}': 0,
      rescue_queue_records: 8,
      rescue_queue_oldest_claimable_age_seconds: 60,
      rescue_queue_unmatched_tasks: 4, // no live worker takes any of them
      rescue_queue_paused: 0,
    });
    // no cap and no rate limit: no series of either
    expect(Object.keys(pick(samples, 'rescue_cap_'))).toEqual([]);
    expect(Object.keys(pick(samples, 'rescue_rate_limit_'))).toEqual([]);
    expect(samples['rescue_workers_live']).toBe(0);
    expect(samples['rescue_metrics_stats_errors_total']).toBe(0);
    // the scrape's own read of stats() is not counted as an operation
    expect(samples['rescue_engine_operation_duration_seconds_count{operation="stats"}']).toBe(
      undefined,
    );

    // the text Prometheus reads
    const text = await registry.metrics();
    expect(text).toContain(`rescue_tasks_created_total{queue="${q.name}",source="api"} 7\n`);
    expect(text).toContain('# TYPE rescue_task_wait_seconds histogram\n');
    expect(text).toContain(
      `rescue_engine_operation_duration_seconds_count{queue="${q.name}",operation="create"} 8\n`,
    );
    expect(text).toMatch(
      /\nrescue_engine_operation_duration_seconds_bucket\{queue="[^"]+",operation="ticker",le="\+Inf"\} 1\n/,
    );
    expect(text).toContain(`rescue_queue_tasks{queue="${q.name}",state="claimable"} 4\n`);
  });

  it('reads flow control: the pause, and each cap and rate limit by its key, never by value', async () => {
    const q = queue();
    q.clock.set('2023-10-20T00:00:00Z');
    const engine = q.engine('one');
    const registry = new Registry();
    registerMetrics(engine, registry);
    await engine.setCap({ concurrency: 3 });
    await engine.setCap({ key: 'tenant', concurrency: 2 });
    await engine.setRateLimit({ limit: '100 per hour' });
    await engine.setRateLimit({ key: 'host', limit: '2 per minute' });
    await engine.create({ meta: { k: 'a1', tenant: 'acme', host: 'x' } });
    await engine.create({ meta: { k: 'a2', tenant: 'acme', host: 'x' } });
    await engine.create({ meta: { k: 'a3', tenant: 'acme', host: 'y' } });
    await engine.create({ meta: { k: 'b1', tenant: 'beta' } });
    await engine.create({ meta: { k: 'c1', host: 'z' } });
    const claimed: Task[] = [];
    for (let task = await engine.search(); task !== undefined; task = await engine.search())
      claimed.push(task);
    // a3 waits for acme's cap, c1 for the whole queue's (three owned)
    expect(claimed.map((task) => task.meta?.['k'])).toEqual(['a1', 'a2', 'b1']);

    let samples = await scrape(registry, q.name);
    expect(pick(samples, 'rescue_cap_')).toEqual({
      'rescue_cap_concurrency{key=""}': 3,
      'rescue_cap_concurrency{key="tenant"}': 2,
      'rescue_cap_owned{key=""}': 3,
      'rescue_cap_owned{key="tenant"}': 3, // acme 2, beta 1
      'rescue_cap_values{key=""}': 0,
      'rescue_cap_values{key="tenant"}': 2,
      'rescue_cap_values_full{key=""}': 1, // reached
      'rescue_cap_values_full{key="tenant"}': 1, // acme
      'rescue_cap_exact{key=""}': 1,
      'rescue_cap_exact{key="tenant"}': 1,
    });
    expect(pick(samples, 'rescue_rate_limit_')).toEqual({
      'rescue_rate_limit_claims_per_window{key=""}': 100,
      'rescue_rate_limit_claims_per_window{key="host"}': 2,
      'rescue_rate_limit_window_seconds{key=""}': 3600,
      'rescue_rate_limit_window_seconds{key="host"}': 60,
      'rescue_rate_limit_claims{key=""}': 3,
      'rescue_rate_limit_claims{key="host"}': 2, // x twice; b1 has no host
      'rescue_rate_limit_values{key=""}': 1,
      'rescue_rate_limit_values{key="host"}': 1,
      'rescue_rate_limit_values_closed{key=""}': 0,
      'rescue_rate_limit_values_closed{key="host"}': 1, // x: its window is full
      'rescue_rate_limit_exact{key=""}': 1,
      'rescue_rate_limit_exact{key="host"}': 1,
    });
    expect(samples['rescue_queue_paused']).toBe(0);
    // what Prometheus reads: the whole queue's series with key "", a key's
    // with its name, never a value
    let text = await registry.metrics();
    expect(text).toContain(`rescue_cap_owned{queue="${q.name}",key=""} 3\n`);
    expect(text).toContain(`rescue_cap_owned{queue="${q.name}",key="tenant"} 3\n`);
    expect(text).not.toMatch(/acme|beta|"x"/);

    // b1 completes (a slot of the queue's cap comes back); a1 is released with
    // a hold of x (context.rateLimit), which outlives the host limit removed
    const [a1, , b1] = claimed as [Task, Task, Task];
    await engine.delete(b1);
    expect(await releaseTask(engine, a1, undefined, 30_000)).toBe(true);
    await engine.removeRateLimit('host');
    await engine.pause();
    samples = await scrape(registry, q.name);
    expect(samples['rescue_queue_paused']).toBe(1);
    expect(pick(samples, 'rescue_cap_owned')).toEqual({
      'rescue_cap_owned{key=""}': 1,
      'rescue_cap_owned{key="tenant"}': 1,
    });
    expect(samples['rescue_cap_values_full{key=""}']).toBe(0);
    expect(pick(samples, 'rescue_rate_limit_')).toEqual({
      'rescue_rate_limit_claims_per_window{key=""}': 100,
      'rescue_rate_limit_window_seconds{key=""}': 3600,
      'rescue_rate_limit_claims{key=""}': 3,
      'rescue_rate_limit_claims{key="host"}': 0,
      'rescue_rate_limit_values{key=""}': 1,
      'rescue_rate_limit_values{key="host"}': 1,
      'rescue_rate_limit_values_closed{key=""}': 0,
      'rescue_rate_limit_values_closed{key="host"}': 1, // x: held
      'rescue_rate_limit_exact{key=""}': 1,
      'rescue_rate_limit_exact{key="host"}': 1,
    });

    // resumed, the caps and the queue's limit removed, the hold and the
    // queue's window over: no series of them
    await engine.resume();
    await engine.removeCap();
    await engine.removeCap('tenant');
    await engine.removeRateLimit();
    q.clock.set('2023-10-20T01:00:01Z');
    samples = await scrape(registry, q.name);
    expect(samples['rescue_queue_paused']).toBe(0);
    expect(pick(samples, 'rescue_cap_')).toEqual({});
    expect(pick(samples, 'rescue_rate_limit_')).toEqual({});
    text = await registry.metrics();
    expect(text).toContain(`rescue_queue_paused{queue="${q.name}"} 0\n`);
  });

  it('counts tasks expire deletes past retention', async () => {
    const q = queue();
    const engine = q.engine('one', { cleanup: 3_600_000 });
    const registry = new Registry();
    registerMetrics(engine, registry);
    await engine.create({ meta: { k: 'a' } });
    await engine.create({ meta: { k: 'b' } });
    await engine.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'kept' } }); // templates stay
    q.clock.advance(2 * 3_600_000);
    await engine.expire();
    const samples = await scrape(registry, q.name);
    expect(samples['rescue_tasks_retention_deleted_total']).toBe(2);
    expect(samples['rescue_queue_records']).toBe(1);
    expect(samples['rescue_tasks_revoked_total']).toBe(0);
  });

  it('counts delete-search completions, gate children and halts of a worker the same way', async () => {
    // a worker completes through the delete-search script: a paging task
    // requeued with cancel 1 halts there, and a trigger fires a gate template
    const q = queue();
    const engine = q.live('one');
    const registry = new Registry();
    registerMetrics(engine, registry);
    const worker = q.worker(engine, [
      {
        filter: () => true,
        ensure: (task) => {
          if (task.meta?.['k'] === 'page') task.sync = { [Label.Paging]: '1' };
          return Promise.resolve();
        },
      },
    ]);
    await engine.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await engine.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'page' } });
    await engine.create({ gate: { g: 'trigger' }, meta: { k: 'trig' } });
    const log = q.log(worker);
    await worker.start();
    // page (requeued and halted), trig, and the gate's child
    await until(() => log.ensured.length >= 3, 5_000, 'three tasks ensured');
    // start() does not wait for the first heartbeat (on a cluster it comes later)
    await until(async () => (await engine.workers()).length === 1, 5_000, 'the presence');
    const samples = await scrape(registry, q.name);
    expect(pick(samples, 'rescue_tasks_')).toEqual({
      'rescue_tasks_created_total{source="api"}': 3,
      'rescue_tasks_created_total{source="cron"}': 0,
      'rescue_tasks_created_total{source="gate"}': 1,
      'rescue_tasks_created_total{source="requeue"}': 1,
      rescue_tasks_completed_total: 3,
      rescue_tasks_failed_total: 0,
      rescue_tasks_revoked_total: 0,
      rescue_tasks_halted_total: 1,
      rescue_tasks_retention_deleted_total: 0,
    });
    expect(samples['rescue_queue_tasks{state="halted"}']).toBe(1);
    expect(samples['rescue_workers_live']).toBe(1);
    expect(samples['rescue_handler_duration_seconds_count{outcome="resolved"}']).toBe(3);
  });
});

describe('registerMetrics: a worker', () => {
  const queue = useWorkerQueue();

  it('times handlers and waits, counts failures, with task labels only from the allow-list', async () => {
    const q = queue();
    // the producer's clock is 700 s behind: every task waited about 700 s when claimed
    const producerClock = fakeClock(formatTime(new Date(Date.now() - 700_000)));
    const producer = q.engine('producer', { clock: producerClock });
    const consumer = q.live('consumer');
    const worker = q.worker(consumer, [
      {
        filter: () => true,
        ensure: (task) =>
          task.meta?.['action'] === 'notify'
            ? Promise.reject(new Error('notify failed'))
            : Promise.resolve(),
      },
    ]);
    const registry = new Registry();
    const options = {
      taskLabels: { action: { map: 'meta', key: 'action', values: ['resize'] } },
    } as const;
    registerMetrics(worker, registry, options);
    registerMetrics(producer, registry, options); // same registry, same queue, same options
    await producer.create({ meta: { action: 'resize' } });
    await producer.create({ meta: { action: 'notify' } }); // not listed: "other"
    await producer.create({ meta: { n: '1' } }); // no action: "none"
    const log = q.log(worker);
    const failed = next(worker, 'task:failed', 5_000);
    await worker.start();
    await failed;
    await until(() => log.ensured.length >= 2, 5_000, 'two tasks ensured');
    expect(log.ensured.map((task) => task.meta?.['action'] ?? 'none').sort()).toEqual([
      'none',
      'resize',
    ]);
    // start() does not wait for the first heartbeat (on a cluster it comes later)
    await until(async () => (await producer.workers()).length === 1, 5_000, 'the presence');

    const samples = await scrape(registry, q.name);
    expect(pick(samples, 'rescue_tasks_')).toEqual({
      'rescue_tasks_created_total{source="api"}': 3,
      'rescue_tasks_created_total{source="cron"}': 0,
      'rescue_tasks_created_total{source="gate"}': 0,
      'rescue_tasks_created_total{source="requeue"}': 0,
      'rescue_tasks_completed_total{action="resize"}': 1,
      'rescue_tasks_completed_total{action="none"}': 1,
      'rescue_tasks_failed_total{action="other"}': 1,
      rescue_tasks_revoked_total: 0,
      rescue_tasks_halted_total: 0,
      rescue_tasks_retention_deleted_total: 0,
    });
    expect(histogramCounts(samples, 'rescue_handler_duration_seconds')).toEqual({
      'rescue_handler_duration_seconds_count{action="resize",outcome="resolved"}': 1,
      'rescue_handler_duration_seconds_count{action="none",outcome="resolved"}': 1,
      'rescue_handler_duration_seconds_count{action="other",outcome="rejected"}': 1,
    });
    for (const action of ['resize', 'none', 'other']) {
      // ~700 s waited: none within 600 s, all within 1800 s
      expect(samples[`rescue_task_wait_seconds_count{action="${action}"}`]).toBe(1);
      expect(samples[`rescue_task_wait_seconds_bucket{action="${action}",le="600"}`]).toBe(0);
      expect(samples[`rescue_task_wait_seconds_bucket{action="${action}",le="1800"}`]).toBe(1);
      const waited = samples[`rescue_task_wait_seconds_sum{action="${action}"}`] ?? 0;
      expect(waited).toBeGreaterThanOrEqual(700);
    }
    // the worker's calls: at least its first search and one delete-search
    const operations = histogramCounts(samples, 'rescue_engine_operation_duration_seconds');
    expect(operations['rescue_engine_operation_duration_seconds_count{operation="create"}']).toBe(
      3,
    );
    expect(
      operations['rescue_engine_operation_duration_seconds_count{operation="search"}'],
    ).toBeGreaterThanOrEqual(1);
    expect(
      operations['rescue_engine_operation_duration_seconds_count{operation="deleteSearch"}'],
    ).toBeGreaterThanOrEqual(1);
    expect(pick(samples, 'rescue_engine_operation_errors_total')).toEqual({});
    // the failed task stays owned until its lease ends; the worker is live
    expect(samples['rescue_queue_tasks{state="owned"}']).toBe(1);
    expect(samples['rescue_queue_tasks{state="claimable"}']).toBe(0);
    expect(samples['rescue_queue_records']).toBe(1);
    expect(samples['rescue_queue_oldest_claimable_age_seconds']).toBe(0);
    expect(samples['rescue_workers_live']).toBe(1);
    // no task label value outside the allow-list reached the registry
    const values = new Set(
      Object.keys(samples).flatMap((name) =>
        [...name.matchAll(/action="([^"]*)"/g)].map((m) => m[1]),
      ),
    );
    expect([...values].sort()).toEqual(['none', 'other', 'resize']);
  });
});

describe('registerMetrics: registration', () => {
  const queue = useWorkerQueue();

  it('registers the metrics of docs/observability.md’s table, with their types and labels', async () => {
    const page = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
    const documented = page
      .split('\n')
      .filter((line) => line.startsWith('| `rescue_'))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .map(([, name = '', type = '', labels = '']) => ({
        name: name.replaceAll('`', ''),
        type,
        // the task labels are the allow-list's (taskLabels), none by default
        labels: [...labels.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).sort(),
      }));
    const registry = new Registry();
    registerMetrics(queue().engine('one'), registry);
    const types = new Map(
      (await registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]),
    );
    const registered = registry.getMetricsAsArray().map((metric) => {
      const { name, labelNames = [] } = metric as unknown as {
        name: string;
        labelNames?: string[];
      };
      return { name, type: types.get(name), labels: [...labelNames].sort() };
    });
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(documented.sort(byName)).toEqual(registered.sort(byName));
  });

  it('stops counting once unregistered, and drops the queue from the gauges', async () => {
    const q = queue();
    const engine = q.engine('one');
    const registry = new Registry();
    const registration = registerMetrics(engine, registry);
    await engine.create({ meta: { k: 'a' } });
    registration.unregister();
    await engine.create({ meta: { k: 'b' } });
    const samples = await scrape(registry, q.name);
    expect(samples['rescue_tasks_created_total{source="api"}']).toBe(1);
    expect(samples['rescue_queue_records']).toBe(undefined);
  });

  it('shares a registry between queues, each with its own label', async () => {
    const q = queue();
    const first = q.engine('one');
    const other = q.engine('two', { queue: `${q.name}-other` });
    const registry = new Registry();
    registerMetrics(first, registry);
    registerMetrics(other, registry);
    try {
      await first.create({ meta: { k: 'a' } });
      await other.create({ meta: { k: 'a' } });
      await other.create({ meta: { k: 'b' } });
      expect((await scrape(registry, q.name))['rescue_queue_records']).toBe(1);
      const samples = await scrape(registry, `${q.name}-other`);
      expect(samples['rescue_queue_records']).toBe(2);
      expect(samples['rescue_tasks_created_total{source="api"}']).toBe(2);
    } finally {
      const keys = await scanKeys(q.redis, `rescue.io:{${q.name}-other}`);
      if (keys.length > 0) await q.redis.del(...keys);
    }
  });

  it('registers only the gauges with activity false (an exporter that watches a queue)', async () => {
    const q = queue();
    const engine = q.engine('one');
    const registry = new Registry();
    registerMetrics(engine, registry, { activity: false });
    await engine.create({ meta: { k: 'a' } });
    await engine.search();
    const samples = await scrape(registry, q.name);
    expect(Object.keys(samples).filter((name) => !name.startsWith('rescue_queue_'))).toEqual([
      'rescue_workers_live',
      'rescue_metrics_stats_errors_total',
    ]);
    expect(samples['rescue_queue_tasks{state="owned"}']).toBe(1);
    expect(() => registerMetrics(q.engine('two'), registry)).toThrow(/other options/);
  });

  it('refuses the same engine twice, other options on a used registry, and what is no engine', () => {
    const q = queue();
    const engine = q.engine('one');
    const registry = new Registry();
    registerMetrics(engine, registry);
    expect(() => registerMetrics(engine, registry)).toThrow(/registered on this registry already/);
    expect(() =>
      registerMetrics(q.engine('two'), registry, {
        taskLabels: { action: { map: 'meta', key: 'action', values: [] } },
      }),
    ).toThrow(/other options/);
    expect(() => registerMetrics({} as never, new Registry())).toThrow(TypeError);
    expect(() => registerMetrics(engine, {} as never)).toThrow(TypeError);
  });
});
