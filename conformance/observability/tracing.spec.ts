import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { TaskCoreError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { registerTracing } from '../../lib/tracing/index.js';
import { idOf, next, until, useWorkerQueue } from '../harness/worker.js';

// rescue-engine/tracing with an in-memory OpenTelemetry exporter: the span of
// `create` (producer) is the parent, or the link, of the worker's span for the
// task (consumer), across Redis.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer: Tracer = provider.getTracer('test');
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});
afterEach(() => exporter.reset());

/** spanNamed returns the one finished span of that name. */
function spanNamed(name: string): ReadableSpan {
  const spans = exporter.getFinishedSpans().filter((span) => span.name === name);
  if (spans.length !== 1) throw new Error(`${spans.length} spans named ${name}`);
  return spans[0] as ReadableSpan;
}

describe('registerTracing', () => {
  const queue = useWorkerQueue();

  it('makes the producer span of create the parent of the consumer span of ensure, and keeps it active for the handler', async () => {
    const q = queue();
    const producer = q.live('producer');
    const consumer = q.live('consumer');
    registerTracing(producer, { tracer });
    const worker = q.worker(consumer, [
      {
        filter: () => true,
        ensure: () => {
          tracer.startSpan('handler step').end(); // a span of the handler's own
          return Promise.resolve();
        },
      },
    ]);
    registerTracing(worker, { tracer });

    // a request span is active when the task is created
    const created = await tracer.startActiveSpan('request', async (request) => {
      try {
        return await producer.create({ meta: { k: 'traced' } });
      } finally {
        request.end();
      }
    });
    const ensured = next(worker, 'task:ensured', 5_000);
    await worker.start();
    await ensured;
    await until(() => exporter.getFinishedSpans().length >= 4, 2_000, 'four spans');

    const request = spanNamed('request');
    const create = spanNamed(`create ${q.name}`);
    const consume = spanNamed(`process ${q.name}`);
    const step = spanNamed('handler step');
    // request -> create (producer) -> process (consumer) -> handler step, one trace
    expect(create.kind).toBe(SpanKind.PRODUCER);
    expect(create.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(consume.kind).toBe(SpanKind.CONSUMER);
    expect(consume.parentSpanContext?.spanId).toBe(create.spanContext().spanId);
    expect(consume.parentSpanContext?.isRemote).toBe(true);
    expect(step.parentSpanContext?.spanId).toBe(consume.spanContext().spanId);
    const traceIds = new Set(
      [request, create, consume, step].map((span) => span.spanContext().traceId),
    );
    expect(traceIds.size).toBe(1);
    // the stored label is the producer span's traceparent
    const { traceId, spanId } = create.spanContext();
    expect(created.core?.[Label.Trace]).toBe(`00-${traceId}-${spanId}-01`);
    expect(create.attributes).toEqual({
      'messaging.system': 'rescue',
      'messaging.destination.name': q.name,
      'messaging.operation.type': 'create',
      'messaging.operation.name': 'create',
      'messaging.message.id': idOf(created),
    });
    expect(consume.attributes).toEqual({
      'messaging.system': 'rescue',
      'messaging.destination.name': q.name,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.message.id': idOf(created),
      'rescue.task.cycles': 0,
      'rescue.worker': 'consumer',
    });
    expect(consume.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('links instead, with relation link: the work starts a trace of its own', async () => {
    const q = queue();
    const engine = q.live('one');
    registerTracing(engine, { tracer, relation: 'link' });
    const worker = q.worker(engine, [{ filter: () => true, ensure: () => Promise.resolve() }]);
    await engine.create({ meta: { k: 'linked' } });
    const ensured = next(worker, 'task:ensured', 5_000);
    await worker.start();
    await ensured;
    await until(() => exporter.getFinishedSpans().length >= 2, 2_000, 'two spans');

    const create = spanNamed(`create ${q.name}`);
    const consume = spanNamed(`process ${q.name}`);
    expect(create.parentSpanContext).toBe(undefined); // nothing was active
    expect(consume.parentSpanContext).toBe(undefined);
    expect(consume.spanContext().traceId).not.toBe(create.spanContext().traceId);
    expect(consume.links.map((link) => link.context.spanId)).toEqual([create.spanContext().spanId]);
  });

  it('marks a rejected ensure, and counts the cycles of a task run again', async () => {
    const q = queue();
    const engine = q.live('one', { expiry: 1_000 });
    registerTracing(engine, { tracer });
    let runs = 0;
    const worker = q.worker(
      engine,
      [
        {
          filter: () => true,
          ensure: () => {
            runs++;
            return runs === 1 ? Promise.reject(new Error('first run fails')) : Promise.resolve();
          },
        },
      ],
      { background: true, expireInterval: 100 },
    );
    const task: Task = await engine.create({ meta: { k: 'retried' } });
    const ensured = next(worker, 'task:ensured', 10_000);
    await worker.start();
    await ensured; // failed, revoked by expire, claimed again, ensured
    await until(() => exporter.getFinishedSpans().length >= 3, 2_000, 'three spans');

    const create = spanNamed(`create ${q.name}`);
    const processes = exporter
      .getFinishedSpans()
      .filter((span) => span.name === `process ${q.name}`);
    expect(processes.map((span) => span.attributes['rescue.task.cycles'])).toEqual([0, 1]);
    expect(processes.map((span) => span.status.code)).toEqual([
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
    expect(processes[0]?.status.message).toBe('first run fails');
    expect(processes[0]?.events.map((event) => event.name)).toEqual(['exception']);
    // both runs continue the creating trace
    expect(processes.map((span) => span.parentSpanContext?.spanId)).toEqual([
      create.spanContext().spanId,
      create.spanContext().spanId,
    ]);
    expect(processes.map((span) => span.attributes['messaging.message.id'])).toEqual([
      idOf(task),
      idOf(task),
    ]);
  });

  it('stores no label without a tracing SDK, and a consumer span of a task without one has no parent', async () => {
    const q = queue();
    const engine = q.live('one');
    const untraced = await engine.create({ meta: { k: 'before' } }); // not registered yet
    // the global tracer provider is the no-op one: its spans have no valid context
    const registration = registerTracing(engine, { tracer: trace.getTracer('none') });
    const plain = await engine.create({ meta: { k: 'noop' } });
    registration.unregister();
    expect(untraced.core?.[Label.Trace]).toBe(undefined);
    expect(plain.core?.[Label.Trace]).toBe(undefined);

    registerTracing(engine, { tracer });
    const worker = q.worker(engine, [{ filter: () => true, ensure: () => Promise.resolve() }]);
    await worker.start();
    await until(() => q.log(worker).ensured.length >= 2, 5_000, 'two tasks ensured');
    const processes = exporter
      .getFinishedSpans()
      .filter((span) => span.name === `process ${q.name}`);
    expect(processes).toHaveLength(2);
    expect(processes.map((span) => span.parentSpanContext)).toEqual([undefined, undefined]);
    expect(processes.map((span) => span.links)).toEqual([[], []]);
  });

  it('leaves the label to the engine: create refuses a trace context the user wrote', async () => {
    const q = queue();
    const engine = q.engine('one');
    registerTracing(engine, { tracer });
    await expect(
      engine.create({
        core: { [Label.Trace]: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
        meta: { k: 'forged' },
      }),
    ).rejects.toBeInstanceOf(TaskCoreError);
    expect(await engine.exists({ meta: { k: 'forged' } })).toBe(false);
  });

  it('refuses what is not an engine or a worker, and an unknown relation', () => {
    const q = queue();
    expect(() => registerTracing({} as never)).toThrow(TypeError);
    expect(() => registerTracing(q.engine('one'), { relation: 'child' as never })).toThrow(
      /relation must be/,
    );
  });
});
