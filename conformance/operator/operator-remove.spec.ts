import type { Engine } from '../../lib/engine/engine.js';
import type { QueueEvent } from '../../lib/engine/events.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { rescue } from '../harness/cli.js';
import { idOf, useWorkerQueue } from '../harness/worker.js';

// An operator's delete (a delete with bypass: `rescue tasks delete`, the
// dashboard's Delete) removes a task, it does not complete it: its outcome is
// `removed`, its waiters hear that, the tasks held after it are removed with
// it instead of released, and `events()` says `removed`. A reset (`cycles`)
// is an event of its own, whoever owned the task.

const bypass = (id: string): Task => ({
  core: { [Label.Object]: id, [Label.Bypass]: 'true' },
});

const brief = (events: readonly QueueEvent[]) =>
  events.map((event) => [event.kind, event.task, event.worker]);

/** halt makes the circuit breaker hold a task: cancel 1, claimed, its lease revoked. */
async function halt(engine: Engine, advance: (ms: number) => void, meta: Record<string, string>) {
  const task = await engine.create({ meta, core: { [Label.Cancel]: '1' } });
  await engine.search({ meta });
  advance(2_000);
  await engine.expire();
  return idOf(task);
}

describe('an operator’s delete (bypass) removes', () => {
  const queue = useWorkerQueue();

  it('records removed, tells a waiter removed, and removes the held tasks instead of releasing them', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.create({ meta: { k: 'a' } });
    const second = await eon.create({ meta: { k: 'b' } }, { after: idOf(first) });
    await eon.events(); // record from now on
    const waiting = eon.wait(idOf(first));
    const waitingHeld = eon.wait(idOf(second));
    await eon.delete(bypass(idOf(first)));
    const outcome = await waiting;
    expect(outcome).toMatchObject({ id: idOf(first), state: 'removed' });
    expect(outcome.error?.message).toMatch(/removed/);
    expect(await waitingHeld).toMatchObject({ id: idOf(second), state: 'removed' });
    expect(await eon.status(idOf(first))).toMatchObject({ state: 'removed' });
    expect(await eon.status(idOf(second))).toMatchObject({
      state: 'removed',
      outcome: { error: { message: expect.stringContaining(idOf(first)) as string } },
    });
    expect(await eon.search()).toBeUndefined(); // b was not released
    expect(await q.redis.exists(q.key.held, q.key.followers)).toBe(0);
    expect(brief(await eon.events())).toEqual([
      ['removed', idOf(second), ''],
      ['removed', idOf(first), ''],
    ]);
  });

  it('removes an owned task (the plain path too) and a halted one, and an owner still completes', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    await eon.events();
    const owned = await eon.create({ meta: { k: 'owned' } });
    await eon.search({ meta: { k: 'owned' } });
    await eon.delete(bypass(idOf(owned)));
    const halted = await halt(eon, (ms) => q.clock.advance(ms), { k: 'halted' });
    await eon.delete(bypass(halted));
    const done = await eon.create({ meta: { k: 'done' } });
    await eon.delete((await eon.search({ meta: { k: 'done' } })) as Task);
    expect((await eon.status(idOf(owned)))?.state).toBe('removed');
    expect((await eon.status(halted))?.state).toBe('removed');
    expect((await eon.status(idOf(done)))?.state).toBe('completed');
    const kinds = brief(await eon.events()).filter(
      ([kind]) => kind !== 'created' && kind !== 'claimed',
    );
    expect(kinds).toEqual([
      ['removed', idOf(owned), 'eon'],
      ['revoked', halted, 'eon'],
      ['removed', halted, ''],
      ['completed', idOf(done), 'eon'],
    ]);
  });

  it('rescue tasks delete removes; rescue tail prints removed', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.create({ meta: { k: 'a' } });
    const second = await eon.create({ meta: { k: 'b' } }, { after: idOf(first) });
    await eon.events();
    const removed = await rescue(['tasks', 'delete', idOf(first), '--yes', '--queue', q.name]);
    expect(removed.code).toBe(0);
    expect((await eon.status(idOf(first)))?.state).toBe('removed');
    expect((await eon.status(idOf(second)))?.state).toBe('removed');
    const tail = await rescue(['tail', '--queue', q.name, '--json']);
    const kinds = tail.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { kind: string; task: string }).kind);
    expect(kinds).toEqual(['removed', 'removed']);
  });
});

describe('a reset (cycles) is an event', () => {
  const queue = useWorkerQueue();

  it('records reset for a halted task, an unowned task with cycles and an owned one', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const halted = await halt(eon, (ms) => q.clock.advance(ms), { k: 'halted' });
    const breaker = () => ({ [Label.Cancel]: '3' });
    const revoked = await eon.create({ meta: { k: 'revoked' }, core: breaker() });
    await eon.search({ meta: { k: 'revoked' } });
    q.clock.advance(2_000);
    await eon.expire();
    const owned = await eon.create({ meta: { k: 'owned' }, core: breaker() });
    const copy = (await eon.search({ meta: { k: 'owned' } })) as Task;
    await eon.events();
    await eon.cycles({ core: { [Label.Object]: halted, ...breaker() } });
    await eon.cycles({ core: { [Label.Object]: idOf(revoked), ...breaker() } });
    await eon.cycles(copy);
    expect(brief(await eon.events())).toEqual([
      ['reset', halted, ''],
      ['reset', idOf(revoked), ''],
      ['reset', idOf(owned), 'eon'],
    ]);
    const tail = await rescue(['tail', '--queue', q.name, '--kind', 'reset']);
    expect(tail.code).toBe(0);
    expect(tail.stdout.trimEnd().split('\n')).toHaveLength(3);
  });
});
