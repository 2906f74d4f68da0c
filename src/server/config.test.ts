/**
 * loadConfig: SEED_DEMO off by default in production, TRUST_PROXY off by default and
 * parsed as a hop count or a list of proxy addresses, `true` refused. WORKERS > 1 only
 * on PostgreSQL, REDIS_URL, METRICS_* and the operations settings.
 */
import { describe, expect, it } from 'vitest';
import { fastifyTrustProxy, loadConfig } from './config';

const SECRET = 'a-production-secret-of-at-least-32-chars';

describe('loadConfig', () => {
  it('accepts the TEST_CLOCK_FILE test hook outside production only', () => {
    expect(loadConfig({ TEST_CLOCK_FILE: '/tmp/clock' }).testClockFile).toBe('/tmp/clock');
    expect(loadConfig({}).testClockFile).toBeUndefined();
    expect(() => loadConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET, TEST_CLOCK_FILE: '/tmp/clock' })).toThrow(/TEST_CLOCK_FILE .* refused when NODE_ENV=production/);
  });

  it('seeds the demo accounts by default only outside production', () => {
    expect(loadConfig({}).seedDemo).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).seedDemo).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET }).seedDemo).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET, SEED_DEMO: 'true' }).seedDemo).toBe(true);
    expect(loadConfig({ SEED_DEMO: 'false' }).seedDemo).toBe(false);
  });

  it('trusts no proxy by default', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
  });

  it('accepts a hop count or a list of proxy IPs, CIDRs and range names', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.5, 10.1.0.0/16 ,::1,fd00::/8, Loopback' }).trustProxy).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses TRUST_PROXY=true and entries that are not addresses', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: true is refused/);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY: true is refused/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.5,proxy.internal' })).toThrow(/TRUST_PROXY: "proxy.internal" is not/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY: "10.0.0.0\/33" is not/);
    expect(() => loadConfig({ TRUST_PROXY: '0x7f.1' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '-1' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '1.5' })).toThrow(/TRUST_PROXY/);
  });

  it("gives Fastify a hop count as proxy-addr's rule: the n nearest hops are trusted", () => {
    const trust = fastifyTrustProxy(1) as (address: string, hop: number) => boolean;
    expect([trust('10.0.0.1', 0), trust('10.0.0.1', 1)]).toEqual([true, false]);
    expect(fastifyTrustProxy(false)).toBe(false);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });

  it('runs one process by default and refuses WORKERS > 1 on PGlite with a clear message', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: '4', DATABASE_URL: 'postgres://u@db:5432/app' }).workers).toBe(4);
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(
      'Invalid configuration: WORKERS=2 needs PostgreSQL (DATABASE_URL): the embedded PGlite database in DATA_DIR belongs to one process; set DATABASE_URL or WORKERS=1',
    );
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS/);
  });

  it('reads the shared rate-limit store, metrics and operations settings', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ redisUrl: undefined, metricsToken: undefined, metricsPort: undefined, metricsHost: '127.0.0.1', maxEventLoopDelayMs: 1000, logPublicSampleRate: 0, shutdownGraceMs: 15_000 });
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl).toBe('redis://127.0.0.1:6379/2');
    expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL: must be a redis/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.2' })).toMatchObject({ metricsPort: 9464, metricsHost: '10.0.0.2' });
    expect(() => loadConfig({ LOG_PUBLIC_SAMPLE_RATE: '2' })).toThrow(/LOG_PUBLIC_SAMPLE_RATE/);
  });

  it('reads the feed fetch timeout, 15 s by default (DECISIONS 20)', () => {
    expect(loadConfig({}).feedTimeoutMs).toBe(15_000);
    expect(loadConfig({ FEED_TIMEOUT_MS: '200' }).feedTimeoutMs).toBe(200);
    expect(() => loadConfig({ FEED_TIMEOUT_MS: '0' })).toThrow(/FEED_TIMEOUT_MS/);
  });
});
