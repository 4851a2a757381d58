import { hostname } from 'node:os';
import type { QueueStats } from '../../lib/engine/stats.js';
import type { WorkerPresence } from '../../lib/engine/presence.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import {
  cliRedis,
  finished,
  oneLineError,
  rescue,
  rescueJson,
  startRescue,
  waitForOutput,
} from '../harness/cli.js';
import { unusedPort } from '../harness/ports.js';
import { idOf, until, useWorkerQueue } from '../harness/worker.js';

// `rescue stats | templates | workers | tail | doctor | repair` through the
// built bin against the test Redis, each test on its own queue.

describe('rescue on a queue', () => {
  const queue = useWorkerQueue();
  const q = () => ['--queue', queue().name];

  it('stats counts what engine.stats() counts; --redis wins over REDIS_URL', async () => {
    const engine = queue().live('one');
    await engine.create({ meta: { kind: 'a' } });
    await engine.create({ meta: { kind: 'b' } });
    await engine.search({ meta: { kind: 'b' } });
    await engine.create({ meta: { kind: 'c' }, cron: { [Label.Every]: '1 hour' } });
    const unreachable = `redis://127.0.0.1:${await unusedPort()}`;
    const [json, human] = await Promise.all([
      rescueJson<QueueStats & { queue: string }>(['stats', ...q()]),
      rescue(['stats', ...q(), '--redis', cliRedis()], { env: { REDIS_URL: unreachable } }),
    ]);
    const stats = await engine.stats();
    expect(json).toEqual({
      ...(JSON.parse(JSON.stringify(stats)) as object),
      at: expect.any(String) as unknown,
      oldestClaimable: { id: stats.oldestClaimable?.id, ageMs: expect.any(Number) as unknown },
      queue: queue().name,
    });
    expect(json).toMatchObject({
      tasks: 3,
      claimable: 1,
      owned: 1,
      cronTemplates: 1,
      ownerCount: 1,
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^queue +rescue\\.io:\\{${queue().name}\\} on 127\\.0\\.0\\.1:\\d+$`, 'm'),
    );
    expect(human.stdout).toMatch(/^claimable +1 {2}\(oldest \d{13}-\d{12}, \d+(ms|s) old\)$/m);
    expect(human.stdout).toMatch(/^owned +1 {2}\(by 1 worker\)$/m);
    expect(human.stdout).toMatch(/^OWNER +TASKS\none +1$/m);
  });

  it('templates lists cron templates with their next tick and gate templates with their keys', async () => {
    const engine = queue().live('one');
    const cron = await engine.create({
      meta: { kind: 'report' },
      cron: { [Label.Every]: '1 hour' },
    });
    const gate = await engine.create({
      meta: { step: 'merge' },
      gate: { g0: 'waiting', g1: 'waiting' },
    });
    await engine.create({ meta: { step: 'leaf' }, gate: { g0: 'trigger' } });
    await engine.delete((await engine.search({ meta: { step: 'leaf' } })) as Task);
    type Templates = {
      cron: Record<string, unknown>[];
      gate: Record<string, unknown>[];
      more: boolean;
    };
    const [json, human] = await Promise.all([
      rescueJson<Templates>(['templates', ...q()]),
      rescue(['templates', ...q()]),
    ]);
    const [stored] = await engine.lister({ meta: { kind: 'report' } });
    expect(json).toEqual({
      cron: [
        {
          name: null, // created, not scheduled by name
          id: idOf(cron),
          every: '1 hour',
          lastTick: stored?.cron?.[Label.TickM1],
          nextTick: stored?.cron?.[Label.TickP1],
          meta: { kind: 'report' },
        },
      ],
      gate: [{ id: idOf(gate), triggered: ['g0'], waiting: ['g1'], meta: { step: 'merge' } }],
      more: false,
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^-     ${idOf(cron)}  1 hour  ${stored?.cron?.[Label.TickP1]} \\(in \\d`, 'm'),
    );
    expect(human.stdout).toMatch(new RegExp(`^${idOf(gate)}  g0 +g1 +step=merge$`, 'm'));
  });

  it('workers lists the live workers with their handlers', async () => {
    const engine = queue().live('eon');
    const worker = queue().worker(
      engine,
      [
        { labels: { meta: { kind: 'mail' } }, filter: () => true, ensure: async () => {} },
        { filter: () => true, ensure: async () => {} },
      ],
      { concurrency: 2, heartbeatInterval: 1_000, presenceTtl: 5_000 },
    );
    expect(await rescueJson(['workers', ...q()])).toEqual([]);
    await worker.start();
    await until(async () => (await engine.workers()).length === 1, 5_000, 'eon is listed');
    const [json, human] = await Promise.all([
      rescueJson<WorkerPresence[]>(['workers', ...q()]),
      rescue(['workers', ...q()]),
    ]);
    expect(json).toEqual([
      expect.objectContaining({
        worker: 'eon',
        host: hostname(),
        pid: process.pid,
        concurrency: 2,
        handlers: [{ meta: { kind: 'mail' } }, null],
      }),
    ]);
    expect(human.stdout).toMatch(/^WORKER +HOST +PID +RUNNING +STARTED +HEARTBEAT +HANDLERS$/m);
    expect(human.stdout).toMatch(
      new RegExp(`^eon +\\S+ +${process.pid} +0/2 .* meta: kind=mail \\| \\*$`, 'm'),
    );
  });

  it('tail prints the newest events, and with --follow the new ones until SIGINT', async () => {
    const engine = queue().live('one');
    const first = await rescue(['tail', ...q()]); // nothing yet: the first read starts the recording
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/^no events recorded yet/);
    const a = await engine.create({ meta: { kind: 'a' } });
    await engine.delete((await engine.search()) as Task);
    const lines = (await rescue(['tail', ...q(), '--json'])).stdout.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ kind: 'created', task: idOf(a), worker: '' }),
      expect.objectContaining({ kind: 'claimed', task: idOf(a), worker: 'one' }),
      expect.objectContaining({ kind: 'completed', task: idOf(a) }),
    ]);
    const human = await rescue(['tail', ...q(), '--limit', '1', '--kind', 'completed']);
    expect(human.stdout).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  completed  ${idOf(a)}  \\S+\\n$`),
    );

    const follow = startRescue([
      'tail',
      ...q(),
      '--follow',
      '--limit',
      '0',
      '--interval',
      '50',
      '--json',
    ]);
    const ended = finished(follow);
    await waitForOutput(follow.stderr, /following rescue\.io:\{/);
    const b = await engine.create({ meta: { kind: 'b' } });
    await waitForOutput(follow.stdout, new RegExp(idOf(b)));
    follow.kill('SIGINT');
    const result = await ended;
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { kind: string; task: string }).task),
    ).toEqual([idOf(b)]);
  });

  it('tail replaces the control characters of worker ids and error messages, as the other commands do', async () => {
    const evil = '\u001b[2Jeon\u009b31m';
    const engine = queue().live(evil);
    await engine.events();
    const worker = queue().worker(engine, [
      {
        filter: () => true,
        ensure: () => Promise.reject(new Error('\u001b]0;pwned\u0007boom\nsecond line')),
      },
    ]);
    worker.on('error', () => {});
    await worker.start();
    await engine.create({ meta: { kind: 'a' } });
    await until(
      async () => (await engine.events()).some((event) => event.kind === 'failed'),
      5_000,
      'the failure was recorded',
    );
    await worker.stop();
    const human = await rescue(['tail', ...q()]);
    expect(human.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- control characters are what it must not print
    expect(human.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3).map((line) => line.split('  ')[1]?.trim())).toEqual([
      'created',
      'claimed',
      'failed',
    ]);
    expect(lines[2]).toMatch(/ {2}\?\[2Jeon\?31m {2}\?\]0;pwned\?boom second line$/);
  });

  it('metrics serves the queue gauges on /metrics until SIGINT', async () => {
    const engine = queue().engine('one');
    await engine.create({ meta: { kind: 'a' } });
    await engine.create({ meta: { kind: 'b' } });
    const serving = startRescue(['metrics', ...q(), '--port', '0']);
    const ended = finished(serving);
    const [url = ''] =
      /http:\/\/\S+\/metrics/.exec(
        await waitForOutput(serving.stdout, /serving http:\/\/\S+\/metrics/),
      ) ?? [];
    const scrape = await (await fetch(url)).text();
    serving.kill('SIGINT');
    const result = await ended;
    expect(scrape).toMatch(/^rescue_queue_tasks\{[^}]*state="claimable"[^}]*\} 2$/m);
    expect(result.code).toBe(0);
  });

  it('doctor prints its checks and exits 1 when one fails', async () => {
    const ok = await rescue(['doctor', ...q()]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^STATUS +CHECK +MESSAGE$/m);
    expect(ok.stdout).toMatch(/^ok +server-version +Redis \d/m);
    expect(ok.stdout).toMatch(/\nstatus: (ok|warn)\n$/);
    await queue().redis.set(queue().key.layout, '0-other');
    const failed = await rescue(['doctor', ...q(), '--json']);
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as {
      status: string;
      checks: { name: string; status: string }[];
    };
    expect(report.status).toBe('fail');
    expect(report.checks.find((check) => check.name === 'layout')?.status).toBe('fail');
  });

  it('repair rebuilds the indexes with --yes; a queue of another layout fails other commands with one line', async () => {
    const engine = queue().live('one');
    await engine.create({ meta: { kind: 'a' } });
    await engine.create({ meta: { kind: 'b' } });
    await queue().redis.set(queue().key.layout, '0-other');
    const refused = await rescue(['stats', ...q()]);
    expect(refused.code).toBe(1);
    expect(oneLineError(refused)).toMatch(/^rescue: .*layout/);
    const repaired = await rescue(['repair', '--yes', ...q()]);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(
      new RegExp(
        `^repaired rescue\\.io:\\{${queue().name}\\}: 2 tasks indexed, 0 skipped, \\d+ steps\\n$`,
      ),
    );
    expect(await rescueJson(['stats', ...q()])).toMatchObject({ tasks: 2, claimable: 2 });
  });
});
