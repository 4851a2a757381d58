import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as metrics from '../../lib/metrics/index.js';
import * as tracing from '../../lib/tracing/index.js';

// Users who do not use metrics or tracing pay nothing: no module reachable
// from the main entry imports prom-client or OpenTelemetry (they load them
// only through rescue-engine/metrics and rescue-engine/tracing).

const lib = new URL('../../lib/', import.meta.url).pathname;
const importPattern = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g;

/** imports lists what a module imports at run time (type-only imports are erased). */
function imports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of source.matchAll(importPattern)) {
    const statement = match[0].trim();
    if (/^(import|export) type\s/.test(statement)) continue;
    const target = match[1] ?? match[2];
    if (target !== undefined) found.push(target);
  }
  return found;
}

/** reachable walks the import graph from an entry: local modules and package names. */
function reachable(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const target of imports(file)) {
      if (target.startsWith('.')) walk(join(dirname(file), target.replace(/\.js$/, '.ts')));
      else
        packages.add(
          target.startsWith('@')
            ? target.split('/').slice(0, 2).join('/')
            : (target.split('/')[0] ?? target),
        );
    }
  };
  walk(join(lib, entry));
  return { modules, packages };
}

describe('optional dependencies', () => {
  it('the main entry reaches neither prom-client nor OpenTelemetry, nor lib/metrics or lib/tracing', () => {
    const { modules, packages } = reachable('index.ts');
    expect(modules.size).toBeGreaterThan(20); // the walk found the engine
    expect(
      [...packages].filter((name) => name === 'prom-client' || name.startsWith('@opentelemetry')),
    ).toEqual([]);
    const optional = [...modules]
      .map((file) => relative(lib, file))
      .filter((file) => file.startsWith('metrics/') || file.startsWith('tracing/'));
    expect(optional).toEqual([]);
  });

  it('the metrics and tracing entries reach their packages (the walk sees packages)', () => {
    expect(reachable('metrics/index.ts').packages.has('prom-client')).toBe(true);
    expect(reachable('tracing/index.ts').packages.has('@opentelemetry/api')).toBe(true);
  });
});

describe('the optional entries', () => {
  it('rescue-engine/metrics and rescue-engine/tracing export exactly these names', () => {
    expect(Object.keys(metrics).sort()).toEqual([
      'metricsDefaults',
      'registerMetrics',
      'serveMetrics',
    ]);
    expect(Object.keys(tracing).sort()).toEqual([
      'formatTraceparent',
      'parseTraceparent',
      'registerTracing',
    ]);
  });
});
