import type { EngineContext } from './context.js';
import { checkLayout } from './layout.js';
import { runScript, scriptsFor, type ScriptName } from './lua/scripts.js';

/**
 * run runs one of the engine's scripts on the context's queue, once the
 * queue's layout was checked (the first call reads it). On a connection the
 * engine opened, the call is also rejected when the engine closes before
 * Redis answered: ioredis keeps a command it could not send while
 * reconnecting, and does not give it up when the connection is then closed,
 * so its caller would wait forever.
 */
export function run(
  context: EngineContext,
  name: ScriptName,
  args: (string | number)[],
): Promise<unknown> {
  const layout = checkLayout(context);
  return layout === undefined
    ? runUnchecked(context, name, args)
    : whilePending(
        context,
        layout.then(() =>
          runScript(context.connection.client, scriptOf(context, name), context.keys, args),
        ),
      );
}

/** runUnchecked runs a script without the layout check (repair, which writes the layout). */
export function runUnchecked(
  context: EngineContext,
  name: ScriptName,
  args: (string | number)[],
): Promise<unknown> {
  return whilePending(
    context,
    runScript(context.connection.client, scriptOf(context, name), context.keys, args),
  );
}

/** scriptOf picks the script of the connection's kind (SPUBLISH on a cluster). */
function scriptOf(context: EngineContext, name: ScriptName) {
  return scriptsFor(context.connection.sharded)[name];
}

/** whilePending lets close() reject a call on a connection the engine opened. */
function whilePending(context: EngineContext, call: Promise<unknown>): Promise<unknown> {
  if (!context.connection.owned) return call;
  return new Promise((resolve, reject) => {
    context.pending.add(reject);
    call.then(resolve, reject).finally(() => context.pending.delete(reject));
  });
}

/**
 * runRequest runs a script that changes the queue as an idempotent request
 * (requests.ts): `args` builds its ARGV around the request, and the request's
 * slot is held until the call settled, so a command ioredis sends again finds
 * its first answer.
 */
export function runRequest(
  context: EngineContext,
  name: ScriptName,
  args: (request: string) => (string | number)[],
): Promise<unknown> {
  const { request, slot } = context.requests.take();
  return run(context, name, args(request)).finally(() => context.requests.give(slot));
}
