import {
  context as contexts,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { Engine } from '../engine/engine.js';
import { addObserver, type CreateScope, type EngineObserver } from '../engine/observe.js';
import { describe } from '../task/describe.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { contextOfTarget } from '../worker/engine-of.js';
import type { Worker } from '../worker/worker.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

/** TracingOptions are the options of `registerTracing`. */
export interface TracingOptions {
  /**
   * tracer makes the spans.
   * @defaultValue trace.getTracer('rescue-engine') of the global tracer provider
   */
  readonly tracer?: Tracer;
  /**
   * relation of a worker's span to the span that created its task: `parent`
   * (one trace from the request to the work) or `link` (the work starts a
   * trace of its own, linked to the creating one: for tasks that run long
   * after, or many times).
   * @defaultValue 'parent'
   */
  readonly relation?: 'parent' | 'link';
}

/** TracingRegistration is one engine's tracing; unregister ends it. */
export interface TracingRegistration {
  unregister(): void;
}

/** The name spans report as their messaging system. */
const system = 'rescue';

/**
 * registerTracing traces an engine with OpenTelemetry (@opentelemetry/api,
 * an optional peer dependency): every `create` opens a producer span, a
 * child of the active span, and stores its trace context in the task's core
 * (`Label.Trace`, a W3C traceparent); every Worker running on the engine
 * runs each `ensure` in a consumer span whose parent (or link) is that
 * producer span, active while the handler runs, so the handler's own spans
 * nest under it. Given a Worker, it registers the worker's engine. Register
 * the producing engines and the working ones, each in its process.
 *
 *     registerTracing(engine);                       // the global tracer provider
 *     registerTracing(worker, { relation: 'link' });
 */
export function registerTracing(
  target: Engine | Worker,
  options: TracingOptions = {},
): TracingRegistration {
  const engineContext = contextOfTarget(target, 'registerTracing');
  const relation: unknown = options.relation ?? 'parent';
  if (relation !== 'parent' && relation !== 'link') {
    throw new TypeError(
      `registerTracing: relation must be 'parent' or 'link'; got ${describe(relation)}`,
    );
  }
  const tracer = options.tracer ?? trace.getTracer('rescue-engine');
  const observer = new TracingObserver(
    tracer,
    engineContext.options.queue,
    engineContext.options.worker,
    relation,
  );
  const remove = addObserver(engineContext, observer);
  return { unregister: remove };
}

/** TracingObserver opens the producer span of each create and the consumer span of each ensure. */
class TracingObserver implements EngineObserver {
  constructor(
    private readonly tracer: Tracer,
    private readonly queue: string,
    private readonly worker: string,
    private readonly relation: 'parent' | 'link',
  ) {}

  creating(): CreateScope {
    const span = this.tracer.startSpan(
      `create ${this.queue}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: this.attributes('create'),
      },
      contexts.active(),
    );
    const spanContext = span.spanContext();
    return {
      // a tracer without an SDK makes spans with no valid context: nothing to pass on
      labels: trace.isSpanContextValid(spanContext)
        ? { [Label.Trace]: formatTraceparent(spanContext) }
        : {},
      end: (stored, error) => {
        const id = stored?.core?.[Label.Object];
        if (id !== undefined) span.setAttribute('messaging.message.id', id);
        if (error !== undefined) failed(span, error);
        span.end();
      },
    };
  }

  async ensure(task: Task, run: () => Promise<unknown>): Promise<unknown> {
    const producer = parseTraceparent(task.core?.[Label.Trace]);
    // the worker's own context (whatever was active when it started) is not the task's
    const parent =
      producer !== undefined && this.relation === 'parent'
        ? trace.setSpanContext(ROOT_CONTEXT, producer)
        : ROOT_CONTEXT;
    const attributes: Attributes = {
      ...this.attributes('process'),
      'rescue.task.cycles': Number(task.core?.[Label.Cycles] ?? '0'),
      'rescue.worker': this.worker,
    };
    const id = task.core?.[Label.Object];
    if (id !== undefined) attributes['messaging.message.id'] = id;
    const span = this.tracer.startSpan(
      `process ${this.queue}`,
      {
        kind: SpanKind.CONSUMER,
        attributes,
        links: producer !== undefined && this.relation === 'link' ? [{ context: producer }] : [],
      },
      parent,
    );
    try {
      return await contexts.with(trace.setSpan(parent, span), run);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  private attributes(operation: 'create' | 'process'): Attributes {
    return {
      'messaging.system': system,
      'messaging.destination.name': this.queue,
      'messaging.operation.type': operation,
      'messaging.operation.name': operation,
    };
  }
}

function failed(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
