import { readFileSync } from 'node:fs';
import {
  dashboardDefaults,
  resolveDashboardOptions,
  tokenLeast,
} from '../lib/dashboard/options.js';
import { keyNames, queueKeys, watchChannel } from '../lib/engine/keys.js';
import { engineDefaults, resolveEngineOptions } from '../lib/engine/options.js';
import { errorByCode } from '../lib/errors.js';
import { Label } from '../lib/task/label.js';
import { limits } from '../lib/task/limits.js';
import { workerDefaults } from '../lib/worker/options.js';

// The tables of docs/reference.md say what the code says: the reserved labels
// of lib/task/label.ts, the limits of lib/task/limits.ts, the error classes
// and codes of lib/errors.ts, and the options with their defaults (the
// dashboard's in docs/dashboard.md).

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const reference = read('docs/reference.md');

/** table returns the rows (cells, trimmed) of the first table under a `## heading` of a page. */
function table(heading: string, page = reference): string[][] {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`the page has no section "## ${heading}"`);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  return lines
    .slice(2) // the header and the |---| line
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

/** code strips one pair of backticks: '`x`' -> 'x'. */
function code(cell: string): string {
  const match = /^`([^`]*)`/.exec(cell);
  return match ? (match[1] ?? '') : cell;
}

/** number reads the first number of a cell: '`30_000`' -> 30000, '1,024' -> 1024. */
function number(cell: string): number {
  const match = /-?[0-9][0-9_,]*(\.[0-9]+)?/.exec(cell);
  if (!match) throw new Error(`no number in "${cell}"`);
  return Number(match[0].replace(/[_,]/g, ''));
}

describe('docs/reference.md', () => {
  it('lists every reserved label of lib/task/label.ts with its key, and no other', () => {
    const documented = Object.fromEntries(
      table('Reserved labels').map(([name = '', key = '']) => [
        code(name).replace(/^Label\./, ''),
        code(key),
      ]),
    );
    expect(documented).toEqual({ ...Label });
  });

  it('lists every limit of lib/task/limits.ts with its value, and no other', () => {
    const documented = Object.fromEntries(
      table('Limits').map(([, name = '', value = '']) => [code(name), number(value)]),
    );
    expect(documented).toEqual({ ...limits });
  });

  it('lists every error class of lib/errors.ts with its code, in the same order', () => {
    const documented = table('Errors').map(([name = '', errorCode = '']) => [
      code(name),
      code(errorCode),
    ]);
    expect(documented).toEqual(
      Object.entries(errorByCode).map(([errorCode, type]) => [type.name, errorCode]),
    );
  });

  it('lists every engine option, and no other', () => {
    const rows = table('Engine options').map(([name = '']) => code(name));
    expect(rows.sort()).toEqual(Object.keys(resolveEngineOptions()).sort());
  });

  it('gives the engine options their defaults', () => {
    const rows = new Map(
      table('Engine options').map(([name = '', value = '']) => [code(name), value]),
    );
    expect(code(rows.get('queue') ?? '')).toBe(`'${engineDefaults.queue}'`);
    expect(rows.get('redis')).toContain(engineDefaults.redisUrl);
    for (const name of [
      'expiry',
      'cleanup',
      'clockSkew',
      'stepTime',
      'outcomeRetention',
      'outcomeLimit',
      'connectTimeout',
      'durabilityTimeout',
    ] as const)
      expect([name, number(rows.get(name) ?? '')]).toEqual([name, engineDefaults[name]]);
    for (const name of ['worker', 'clock', 'metaIndexes', 'retry'])
      expect(rows.has(name)).toBe(true);
    expect(code(rows.get('durability') ?? '')).toBe(`'${engineDefaults.durability}'`);
  });

  it('lists every worker option with its default', () => {
    const rows = new Map(
      table('Worker options').map(([name = '', value = '']) => [code(name), value]),
    );
    expect([...rows.keys()].sort()).toEqual(Object.keys(workerDefaults).sort());
    // A default that is not a constant (undefined) is described in words.
    const documented = Object.fromEntries(
      Object.entries(workerDefaults).map(([name, value]): [string, unknown] => {
        const cell = rows.get(name) ?? '';
        if (typeof value === 'number') return [name, number(cell)];
        if (typeof value === 'boolean') return [name, code(cell) === 'true'];
        return [name, cell === '' ? 'missing' : undefined];
      }),
    );
    expect(documented).toEqual({ ...workerDefaults });
  });

  it('lists every dashboard option in docs/dashboard.md, and no other', () => {
    const rows = table('Options', read('docs/dashboard.md')).map(([name = '']) => code(name));
    // hostsGiven is the resolver's own note (was allowedHosts given?), not an option
    const { hostsGiven, ...resolved } = resolveDashboardOptions({});
    expect(typeof hostsGiven).toBe('boolean');
    expect(rows.sort()).toEqual(Object.keys(resolved).sort());
  });

  it('gives the dashboard options of docs/dashboard.md their defaults', () => {
    const rows = new Map(
      table('Options', read('docs/dashboard.md')).map(([name = '', value = '', meaning = '']) => [
        code(name),
        { value, meaning },
      ]),
    );
    const cell = (name: string): string => rows.get(name)?.value ?? '';
    expect(code(cell('write'))).toBe(String(dashboardDefaults.write));
    expect(code(cell('basePath'))).toBe(`'${dashboardDefaults.basePath}'`);
    expect(number(cell('sampleInterval'))).toBe(dashboardDefaults.sampleInterval);
    expect(number(cell('pollInterval'))).toBe(dashboardDefaults.pollInterval);
    expect(number(cell('history')) * 60_000).toBe(dashboardDefaults.history);
    expect(rows.get('token')?.meaning).toContain(`${tokenLeast} characters`);
  });
});

describe('docs/redis-layout.md', () => {
  it('describes every key and channel of lib/engine/keys.ts, and no other', () => {
    const page = read('docs/redis-layout.md');
    const documented = page
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)])
      .map((match) => match[1] ?? '');
    const keys = queueKeys('q');
    const name = (key: string) => key.slice(keys.prefix.length + 1);
    const built = [
      ...keyNames,
      ...[keys.progress, keys.workers, keys.worker('<worker>'), keys.expireLock, keys.tickerLock],
      watchChannel(keys, '<id>'),
    ].map((key) => (key.startsWith(keys.prefix) ? name(key) : key));
    expect([...new Set(documented)].sort()).toEqual([...new Set(built)].sort());
  });
});
