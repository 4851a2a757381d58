// Type test of defineTask (docs/typed-tasks.md), compiled by `npm run
// typecheck` (strict, NodeNext) and never run: each line with
// `@ts-expect-error` must be an error, every other line must compile.
// spec/typed-task-types.spec.ts compiles a wrong payload without the marker.
import {
  defineTask,
  Engine,
  Worker,
  type StandardSchemaV1,
  type Task,
  type TypedOutcome,
} from '../../lib/index.js';

declare const engine: Engine;

const sendMail = defineTask<{ to: string }, { messageId: string }>({
  meta: { kind: 'send-mail' },
});

export async function producer(): Promise<string | undefined> {
  const task: Task = await sendMail.create(engine, { to: 'ann@example.com' });
  const outcome: TypedOutcome<{ messageId: string }> = await sendMail.run(engine, { to: 'bo' });
  const again = await sendMail.wait(engine, task.core?.['task.rescue.io/object'] ?? '');
  const id: string | undefined = again.result?.messageId;

  // @ts-expect-error a payload without `to`
  await sendMail.create(engine, {});
  // @ts-expect-error `to` must be a string
  await sendMail.create(engine, { to: 42 });
  // @ts-expect-error a key the payload type does not have
  await sendMail.run(engine, { to: 'ann', cc: 'bo' });
  // @ts-expect-error the result has no `status`
  const status: unknown = outcome.result?.status;
  return status === undefined ? id : undefined;
}

export function worker(): Worker {
  return new Worker(engine, [
    sendMail.handler(async (payload, context) => {
      const to: string = payload.to;
      context.log(`to ${to}`);
      await context.extend();
      return { messageId: `<${to}>` };
    }),
    // @ts-expect-error the handler's result must be the declared result
    sendMail.handler(() => Promise.resolve({ id: 1 })),
    // @ts-expect-error the payload has no `cc`
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- the error is the test
    sendMail.handler((payload) => Promise.resolve({ messageId: payload.cc })),
  ]);
}

// A schema of any Standard Schema library gives the payload its type.
declare const schema: StandardSchemaV1<unknown, { n: number }>;
const square = defineTask({ meta: { kind: 'square' }, schema });

export async function schemaTyped(): Promise<void> {
  await square.create(engine, { n: 2 });
  // @ts-expect-error the schema's output type is the payload type
  await square.create(engine, { n: '2' });
}

export async function uniqueTyped(): Promise<string> {
  const answer = await sendMail.create(engine, { to: 'ann' }, { unique: { key: 'ann' } });
  const plain: Task = await sendMail.create(engine, { to: 'ann' });
  return `${answer.action} ${plain.core?.['task.rescue.io/object'] ?? ''}`;
}

export async function priorities(): Promise<void> {
  const urgent = defineTask<{ to: string }>({ meta: { kind: 'page' }, priority: 10 });
  const level: number = urgent.priority;
  await urgent.create(engine, { to: 'ann' }, { priority: level + 1 });
  await urgent.run(engine, { to: 'ann' }, { priority: -1, timeout: 1_000 });
  // @ts-expect-error a priority is a number, not a label's string
  await urgent.create(engine, { to: 'ann' }, { priority: '5' });
  // @ts-expect-error nor is the kind's
  defineTask({ meta: { kind: 'page' }, priority: '10' });
}
