import { integerFlag } from '../args.js';
import { defineEngineCommand } from '../command.js';
import { usageError } from '../exit.js';

/**
 * `rescue metrics`: serves the queue's gauges (tasks by state, oldest
 * claimable age, live workers, from engine.stats() at each scrape) on
 * /metrics for Prometheus. prom-client is an optional dependency: it is
 * loaded only here, and its absence is one clear error.
 */
export const metricsCommand = defineEngineCommand({
  name: 'metrics',
  summary: "serve the queue's gauges on /metrics for Prometheus, until Ctrl-C",
  description:
    "Serves the queue's gauges (tasks by state, records, oldest claimable age,\nunmatched tasks, live workers), read from the queue at each scrape, in the\nPrometheus text format. The counters and histograms of work done live in the\nprocesses that do it: register them there (registerMetrics). Needs the\noptional dependency prom-client (npm install prom-client).",
  options: {
    port: { type: 'string', value: '<port>', help: 'port to listen on, 0 to 65535 (default 9464)' },
    host: { type: 'string', value: '<host>', help: 'address to bind (default 127.0.0.1)' },
  },
  examples: ['rescue metrics --port 9464', 'rescue metrics --host 0.0.0.0 --queue orders'],
  check(values) {
    integerFlag(values, 'port', 9464, 0, 65_535);
    if (values.string('host') === '') throw usageError('--host must not be empty');
  },
  async run({ engine, values, io }) {
    const port = integerFlag(values, 'port', 9464, 0, 65_535);
    const host = values.string('host') ?? '127.0.0.1';
    const promClient = await import('prom-client').catch(() => undefined);
    if (promClient === undefined) {
      throw new Error('rescue metrics needs prom-client: npm install prom-client');
    }
    const { registerMetrics, serveMetrics } = await import('../../metrics/index.js');
    const registry = new promClient.Registry();
    const registration = registerMetrics(engine, registry, { activity: false });
    const server = await serveMetrics(registry, { port, host });
    io.out(`serving ${server.url} (Ctrl-C to stop)`);
    await io.stopped;
    await server.close();
    registration.unregister();
  },
});
