import type { EngineContext } from './context.js';
import { durable, WriteConnectionLostError } from './durability.js';
import { checkLayout } from './layout.js';
import type { Resend } from './lua/command.js';
import { runScript, type ScriptName } from './lua/scripts.js';
import { connectionLost } from './reach.js';

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
  resend?: Resend,
): Promise<unknown> {
  const layout = checkLayout(context);
  if (layout === undefined) return runUnchecked(context, name, args, resend);
  const script = scriptOf(context, name);
  return whilePending(
    context,
    durable(context, script, () =>
      layout.then(() => runScript(context.connection.client, script, context.keys, args, resend)),
    ),
  );
}

/** runUnchecked runs a script without the layout check (repair, which writes the layout). */
export function runUnchecked(
  context: EngineContext,
  name: ScriptName,
  args: (string | number)[],
  resend?: Resend,
): Promise<unknown> {
  const script = scriptOf(context, name);
  return whilePending(
    context,
    durable(context, script, () =>
      runScript(context.connection.client, script, context.keys, args, resend),
    ),
  );
}

/** scriptOf picks the engine's script (context.scripts: the connection's kind, the stepTime). */
function scriptOf(context: EngineContext, name: ScriptName) {
  return context.scripts[name];
}

/**
 * whilePending bounds how long a call waits for Redis (reach.ts), and lets
 * close() reject it on a connection the engine opened.
 */
function whilePending(context: EngineContext, call: Promise<unknown>): Promise<unknown> {
  return context.reach.guard(call);
}

/** How many times a request is sent again after its call failed for want of a connection. */
const requestRetries = 2;
/** How long to wait before each of those, ms (times the attempt). */
const retryDelayMs = 100;

/**
 * runRequest runs a script that changes the queue as an idempotent request
 * (requests.ts): `args` builds its ARGV around the request, and the request's
 * slot is held until the call settled, so a command ioredis sends again finds
 * its first answer.
 *
 * When the call fails without an answer from Redis (ioredis gave up on the
 * connection: its retries per request ran out, or the connection closed; or,
 * with durability 'replica', it closed before a replica confirmed), the
 * script may or may not have run; the same request is sent again, twice at
 * most, and answers what the first run did if it ran. Without that, a claim
 * made just before Redis went away would be owned by nobody who knows until
 * its lease ended, and a create would fail although it stored its task.
 *
 * `sentAgainAt`, for a script that reads it (complete-claim.lua): the index
 * in ARGV of an argument that the script reads prefixed with `r` when the
 * request may have run already: on every send after the first, whether
 * runRequest or ioredis sends it (command.ts Resend). A first send is told
 * apart so that it does not look for a kept answer: its request id is new
 * (requests.ts), so there is none.
 */
export async function runRequest(
  context: EngineContext,
  name: ScriptName,
  args: (request: string) => (string | number)[],
  sentAgainAt?: number,
): Promise<unknown> {
  const { request, slot } = context.requests.take();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const argv = args(request);
        if (sentAgainAt === undefined) return await run(context, name, argv);
        const again = `r${argv[sentAgainAt]}`;
        if (attempt > 0) argv[sentAgainAt] = again;
        return await run(context, name, argv, { index: sentAgainAt, value: again });
      } catch (error) {
        // not once Redis stayed away for the whole connectTimeout
        if (
          attempt >= requestRetries ||
          context.closed ||
          context.reach.givenUp ||
          !(connectionLost(error) || error instanceof WriteConnectionLostError)
        )
          throw error;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * (attempt + 1)));
      }
    }
  } finally {
    context.requests.give(slot);
  }
}
