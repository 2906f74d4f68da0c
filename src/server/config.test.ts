/**
 * loadConfig (issue 11): SEED_DEMO off by default in production, TRUST_PROXY off by default and
 * parsed as a hop count or a list of proxy addresses, `true` refused.
 */
import { describe, expect, it } from 'vitest';
import { fastifyTrustProxy, loadConfig } from './config';

const SECRET = 'a-production-secret-of-at-least-32-chars';

describe('loadConfig', () => {
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
});
