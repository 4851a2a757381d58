import { request } from 'node:http';
import { Counter, Registry } from 'prom-client';
import { serveMetrics } from '../../lib/metrics/serve.js';

/** get sends a request and resolves with status, content type and body. */
function get(url: string, method = 'GET'): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers['content-type']),
          body,
        }),
      );
    });
    call.on('error', reject);
    call.end();
  });
}

describe('serveMetrics', () => {
  it('serves the registry at /metrics in its content type, 404 elsewhere, 405 for other methods', async () => {
    const registry = new Registry();
    new Counter({ name: 'demo_total', help: 'a demo', registers: [registry] }).inc(3);
    const server = await serveMetrics(registry, { port: 0 });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
      const scrape = await get(server.url);
      expect(scrape.status).toBe(200);
      expect(scrape.type).toBe(registry.contentType);
      expect(scrape.body).toContain('demo_total 3\n');
      const head = await get(server.url, 'HEAD');
      expect([head.status, head.body]).toEqual([200, '']);
      expect((await get(server.url.replace('/metrics', '/other'))).status).toBe(404);
      expect((await get(server.url, 'POST')).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('answers 500 with the message when the scrape fails', async () => {
    const registry = new Registry();
    new Counter({
      name: 'broken_total',
      help: 'fails',
      registers: [registry],
      collect() {
        throw new Error('collect failed');
      },
    });
    const server = await serveMetrics(registry, { port: 0, path: '/m' });
    try {
      const scrape = await get(server.url);
      expect([scrape.status, scrape.body]).toEqual([500, 'collect failed\n']);
    } finally {
      await server.close();
    }
  });

  it('rejects a bad port or path', async () => {
    const registry = new Registry();
    await expect(serveMetrics(registry, { port: 70_000 })).rejects.toThrow(RangeError);
    await expect(serveMetrics(registry, { port: 0, path: 'metrics' })).rejects.toThrow(RangeError);
  });
});
