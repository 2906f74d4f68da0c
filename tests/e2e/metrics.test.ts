/**
 * GET /metrics of the real server, on PGlite: on the main port only with
 * `Authorization: Bearer METRICS_TOKEN`, and on the internal METRICS_PORT; both parse as Prometheus
 * text, and the request, event and cache counters move with beacons, banner and script requests.
 * Responses carry their X-Request-Id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startServer, freePort, DESKTOP_UA, DEALER_SITE_ORIGIN, type RunningServer } from './harness';
import { parsePrometheus, sampleSum, type Exposition } from './prometheus';
import { DEMO_DEALER } from '../../src/server/db/seed';

const TOKEN = `metrics-${randomUUID()}`;

describe('GET /metrics', () => {
  let server: RunningServer;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    server = await startServer({ METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn', FEED_SCHEDULER_INTERVAL_MS: '0' });
  }, 120_000);
  afterAll(() => server?.stop());

  const scrape = async (origin = server.origin): Promise<Exposition> => {
    const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(await res.text());
  };

  it('answers only with the token on the main port, and on the internal port', async () => {
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.origin}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401);
    const main = await scrape();
    const internal = await scrape(`http://127.0.0.1:${metricsPort}`);
    expect(internal.types.get('http_request_duration_seconds')).toBe('histogram');
    expect(main.types.get('dcb_events_accepted_total')).toBe('counter');
    expect(main.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(401); // the token applies there too
  });

  it('moves its counters with traffic', async () => {
    const before = await scrape();
    let views = 0;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.origin}/api/analytics/track`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': DESKTOP_UA, origin: DEALER_SITE_ORIGIN },
        body: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${DEALER_SITE_ORIGIN}/new-inventory`, pv: `pv-metrics-${++views}` }),
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    for (let i = 0; i < 3; i++) {
      const image = await fetch(`${server.origin}/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`, { headers: { 'user-agent': DESKTOP_UA } });
      expect(image.status).toBe(200);
      await image.arrayBuffer();
      const script = await fetch(`${server.origin}/scripts/dc-banners-${DEMO_DEALER.id}.js`);
      expect(script.status).toBe(200);
      await script.arrayBuffer();
    }
    const diff = (m: Exposition, name: string, labels: Record<string, string> = {}) => sampleSum(m, name, labels) - sampleSum(before, name, labels);
    await expect.poll(async () => diff(await scrape(), 'dcb_events_stored_total'), { timeout: 30_000 }).toBe(5);
    const after = await scrape();
    expect(diff(after, 'dcb_events_accepted_total')).toBe(5);
    expect(diff(after, 'http_request_duration_seconds_count', { route: '/api/analytics/track', status_code: '204' })).toBe(5);
    expect(diff(after, 'http_request_duration_seconds_count', { route: '/api/scripts/:dealerId/asset', status_code: '200' })).toBe(3);
    expect(diff(after, 'http_request_duration_seconds_count', { route: '/scripts/:file', status_code: '200' })).toBe(3);
    expect(diff(after, 'dcb_cache_lookups_total', { cache: 'script', result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(diff(after, 'dcb_cache_lookups_total', { cache: 'bytes', result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(diff(after, 'dcb_event_batch_write_seconds_count', { result: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sampleSum(after, 'dcb_event_buffer_depth')).toBe(0);
  });
});
