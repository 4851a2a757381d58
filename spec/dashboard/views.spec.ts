import { html } from '../../lib/dashboard/html.js';
import { chart, type ChartPoint } from '../../lib/dashboard/views/chart.js';
import { duration, relative, timeLabel } from '../../lib/dashboard/views/format.js';
import { allMaps, chips } from '../../lib/dashboard/views/labels.js';
import { layout, type PageContext } from '../../lib/dashboard/views/layout.js';
import { taskTable } from '../../lib/dashboard/views/task-row.js';
import { taskFacts } from '../../lib/task/facts.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';

const now = new Date('2023-10-20T12:00:00Z');
const context: PageContext = {
  base: '/ops',
  write: true,
  csrf: 'token',
  now,
  queue: 'rescue.io:{q}',
  pollInterval: 5_000,
};
const hostile = '<img src=x onerror=alert(1)>"\'&';
const hostileTask: Task = {
  core: { [Label.Object]: '1697760000000-000000000001', [Label.Worker]: hostile },
  cron: { [Label.TickP1]: hostile },
  gate: { [hostile]: 'trigger' },
  meta: { [hostile]: hostile },
  node: { [Label.Method]: 'any' },
  root: { [hostile]: hostile },
  sync: { [hostile]: hostile },
};

describe('dashboard views', () => {
  it('never let a label key or value through unescaped', () => {
    const markup = [
      allMaps(hostileTask),
      chips(hostileTask.meta),
      taskTable(context, [hostileTask], ''),
      layout(context, { name: 'tasks', title: hostile, content: html`${hostile}` }),
    ]
      .map((part) => part.text)
      .join('\n');
    expect(markup).not.toContain('<img');
    expect(markup).not.toContain(`"'&`);
    expect(markup).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
  });

  it('write durations and times against now', () => {
    expect(duration(850)).toBe('850 ms');
    expect(duration(42_000)).toBe('42 s');
    expect(duration(210_000)).toBe('3.5 min');
    expect(duration(2 * 86_400_000)).toBe('2.0 d');
    expect(relative(new Date('2023-10-20T12:03:30Z'), now)).toBe('in 3.5 min');
    expect(relative(new Date('2023-10-20T11:59:18Z'), now)).toBe('42 s ago');
    expect(relative(now, now)).toBe('now');
    expect(timeLabel('2023-10-20T12:00:05Z', now).text).toContain('(in 5 s)');
    expect(timeLabel('not a time', now).text).toBe('<code>not a time</code>');
    expect(timeLabel(undefined, now).text).toContain('—');
  });

  it('chart the samples of the span as one line per count', () => {
    const series = ['claimable', 'owned', 'waiting', 'halted'];
    const draw = (points: ChartPoint[], spanMs: number) => chart(points, series, spanMs, 'tasks');
    expect(draw([], 60_000).text).toContain('Collecting samples');
    const sample = (at: number, claimable: number): ChartPoint => ({
      at,
      values: { claimable, owned: 1, waiting: 0, halted: 0 },
    });
    const svg = draw([sample(0, 0), sample(30_000, 5), sample(60_000, 10)], 60_000).text;
    expect(svg.match(/<polyline/g)).toHaveLength(4);
    const points = (markup: string, name: string) =>
      new RegExp(`class="series ${name}"[^>]*points="([^"]*)"`).exec(markup)?.[1];
    expect(points(svg, 'claimable')).toBe('4.0,156.0 320.0,80.0 636.0,4.0');
    expect(svg).toContain('from 0 to 10');
    // a longer history: only the last span is drawn, across the whole width
    const longer = draw([sample(0, 10), sample(60_000, 0), sample(120_000, 10)], 60_000).text;
    expect(points(longer, 'claimable')).toBe('4.0,156.0 636.0,4.0');
    expect(longer).toContain('the last 1.0 min');
    // a dashboard that just started: the time since its first sample
    expect(draw([sample(0, 1), sample(3_000, 2)], 600_000).text).toContain('the last 3 s');
  });
});

describe('what the dashboard reads from a task', () => {
  const id = '1697760000000-000000000001';
  const facts = (task: Task) =>
    taskFacts({ ...task, core: { [Label.Object]: id, ...task.core } }, now);

  it('tells its kind from its labels', () => {
    expect(facts({ meta: { a: 'b' } }).kind).toBe('claimable');
    expect(facts({ cron: { [Label.Every]: 'hour' }, meta: { a: 'b' } }).kind).toBe('cron');
    expect(facts({ gate: { k: 'waiting' }, meta: { a: 'b' } }).kind).toBe('gate');
    expect(facts({ gate: { k: 'trigger' }, meta: { a: 'b' } }).kind).toBe('claimable');
    expect(facts({ node: { [Label.Method]: Method.All }, meta: { a: 'b' } }).kind).toBe(
      'broadcast',
    );
    expect(facts({ core: { [Label.Worker]: 'w' }, meta: { a: 'b' } }).kind).toBe('owned');
    expect(
      facts({ core: { [Label.Cancel]: '2', [Label.Cycles]: '2' }, meta: { a: 'b' } }).kind,
    ).toBe('halted');
    expect(facts({ cron: { [Label.Exact]: '2023-10-20T13:00:00Z' }, meta: { a: 'b' } }).kind).toBe(
      'waiting',
    );
    expect(facts({ cron: { [Label.Exact]: '2023-10-20T11:00:00Z' }, meta: { a: 'b' } }).kind).toBe(
      'claimable',
    );
  });

  it('reads owner, lease, cycles, due time, template and gate keys', () => {
    const read = facts({
      core: {
        [Label.Worker]: 'w',
        [Label.Expiry]: '2023-10-20T12:00:30Z',
        [Label.Cycles]: '3',
        [Label.Cancel]: '5',
      },
      cron: { [Label.TickP1]: '2023-10-20T12:05:00Z' },
      gate: { k: 'trigger', l: 'waiting' },
      root: { [Label.Object]: '1697760000000-000000000000' },
      meta: { a: 'b' },
    });
    expect(read).toMatchObject({
      id,
      owner: 'w',
      leaseEnd: '2023-10-20T12:00:30Z',
      cycles: 3,
      cancel: 5,
      due: '2023-10-20T12:05:00Z',
      template: '1697760000000-000000000000',
      triggers: true,
      gateKeys: [
        { key: 'k', value: 'trigger' },
        { key: 'l', value: 'waiting' },
      ],
    });
    expect(facts({ core: { [Label.Cycles]: 'many' }, meta: { a: 'b' } }).cycles).toBe(0);
  });
});
