import { outcomeFields } from '../../lib/engine/outcome.js';
import { failTask, releaseTask, retryTask } from '../../lib/engine/runtime.js';
import { Label } from '../../lib/task/label.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { Client, useDashboards } from '../harness/dashboard.js';
import { idOf, useQueue } from '../harness/queue.js';

// The attempt log (docs/semantics.md §7.2): a task in the queue keeps its
// last 10 ended attempts (state, worker, started, ended, error message),
// written where an attempt ends (fail, retry, release of an attempt cut
// short, expire's revocation), and going with the task.

describe('the attempt log', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('logs a failure, a retry and a lease that ran out, with their times; a failure then its lease is one attempt', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const id = idOf(await eon.create({ core: { [Label.Cancel]: '20' }, meta: { kind: 'mail' } }));

    // 1: the lease runs out with nothing recorded
    await eon.search();
    q.clock.advance(1_000);
    await eon.expire();
    // 2: the handler fails (fail.lua), then its lease runs out: one attempt
    let copy = await eon.search();
    const fields = (message: string, startedMs: number) =>
      outcomeFields({ worker: 'eon', startedMs, error: new Error(message) });
    let started = q.clock().getTime();
    q.clock.advance(200);
    expect(await failTask(eon, copy ?? {}, 'failed', fields('upstream said 503', started))).toBe(
      true,
    );
    q.clock.advance(800);
    await eon.expire();
    // 3: the handler fails under a retry policy (retry.lua)
    copy = await eon.search();
    started = q.clock().getTime();
    q.clock.advance(100);
    expect(
      await retryTask(eon, copy ?? {}, fields('timeout <talking> to upstream', started), {}),
    ).toBe('retried');

    const status = await eon.status(id);
    expect(status?.attempts).toEqual([
      {
        state: 'expired',
        worker: 'eon',
        startedAt: '2023-10-20T00:00:01Z',
        endedAt: '2023-10-20T00:00:02Z',
      },
      {
        state: 'failed',
        worker: 'eon',
        startedAt: '2023-10-20T00:00:02Z',
        endedAt: '2023-10-20T00:00:02.2Z',
        error: 'upstream said 503',
      },
      {
        state: 'failed',
        worker: 'eon',
        startedAt: '2023-10-20T00:00:03Z',
        endedAt: '2023-10-20T00:00:03.1Z',
        error: 'timeout <talking> to upstream',
      },
    ]);
  });

  it('logs an attempt a stopping worker cut short (release.lua), and not a plain release', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const id = idOf(await eon.create({ meta: { kind: 'mail' } }));
    expect(await releaseTask(eon, (await eon.search()) ?? {})).toBe(true);
    expect((await eon.status(id))?.attempts).toBeUndefined();
    const copy = await eon.search();
    const fields = outcomeFields({
      worker: 'eon',
      startedMs: q.clock().getTime(),
      error: new Error('the worker stopped'),
    });
    q.clock.advance(50);
    expect(await releaseTask(eon, copy ?? {}, fields)).toBe(true);
    expect((await eon.status(id))?.attempts).toEqual([
      {
        state: 'failed',
        worker: 'eon',
        startedAt: '2023-10-20T00:00:01Z',
        endedAt: '2023-10-20T00:00:01.05Z',
        error: 'the worker stopped',
      },
    ]);
  });

  it('keeps the last 10, and goes with the task', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const id = idOf(await eon.create({ core: { [Label.Cancel]: '50' }, meta: { kind: 'mail' } }));
    for (let n = 0; n < 12; n++) {
      await eon.search();
      q.clock.advance(1_000);
      await eon.expire();
    }
    const attempts = (await eon.status(id))?.attempts ?? [];
    expect(attempts).toHaveLength(10);
    expect(attempts[0]?.startedAt).toBe('2023-10-20T00:00:03Z'); // the first two dropped
    expect(attempts[9]?.endedAt).toBe('2023-10-20T00:00:13Z');
    const copy = await eon.search();
    await eon.delete(copy ?? {});
    expect(await q.redis.hlen(q.key['attempt-log'])).toBe(0);
  });
});

describe('the attempt log, shown', () => {
  const dashboard = useDashboards();
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('on the dashboard’s task page and by rescue tasks show', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 1_000 });
    const id = idOf(await eon.create({ core: { [Label.Cancel]: '5' }, meta: { kind: 'mail' } }));
    const copy = await eon.search();
    const fields = outcomeFields({
      worker: 'eon',
      startedMs: q.clock().getTime(),
      error: new Error('upstream said <no>'),
    });
    q.clock.advance(300);
    await retryTask(eon, copy ?? {}, fields, {});
    await eon.search();
    q.clock.advance(1_000);
    await eon.expire();

    const page = (await new Client(dashboard(eon)).page(`/task/${id}`)).text;
    expect(page).toContain('data-attempt-log');
    // newest first: the lease that ran out, then the failure (escaped)
    expect([...page.matchAll(/data-attempt="([a-z]+)"/g)].map((match) => match[1])).toEqual([
      'expired',
      'failed',
    ]);
    expect(page).toContain('upstream said &lt;no&gt;');

    const shown = await rescueJson<{ attempts: unknown[] }>([
      'tasks',
      'show',
      id,
      '--queue',
      q.name,
    ]);
    expect(shown.attempts).toEqual([
      {
        state: 'failed',
        worker: 'eon',
        startedAt: '2023-10-20T00:00:01Z',
        endedAt: '2023-10-20T00:00:01.3Z',
        error: 'upstream said <no>',
      },
      {
        state: 'expired',
        worker: 'eon',
        startedAt: '2023-10-20T00:00:01.3Z',
        endedAt: '2023-10-20T00:00:02.3Z',
      },
    ]);
    const human = await rescue(['tasks', 'show', id, '--queue', q.name]);
    expect(human.stdout).toContain('upstream said <no>');
    expect(human.stdout).toContain('expired');
  });
});
