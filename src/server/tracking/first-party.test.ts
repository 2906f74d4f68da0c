/**
 * The first-party install on the server's side (README "First-party install"): the dealer's own
 * reverse proxy forwards the script, the images and the beacons of its shoppers, so they reach the
 * banner server from the proxy's address, through the deployment's own load balancer. With the
 * dealer's proxy listed in TRUST_PROXY beside the load balancer, each shopper keeps their own
 * per-IP beacon budget (X-Forwarded-For); an unlisted proxy is one client for the limit. Beacons
 * are still judged by the page's Origin against the dealer's allowed domains, and the script is
 * the same bytes whichever way it is fetched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { MAX_REQUESTS_PER_MINUTE, RATE_LIMIT_NAT_FACTOR } from '../../domain/constants';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const DEALER_SITE = 'https://www.hondaofdemo.com';
/** The deployment's load balancer (the TCP peer of every request) and the dealer's reverse proxy. */
const LOAD_BALANCER = '10.0.0.5';
const DEALER_PROXY = '203.0.113.10';
const UNLISTED_PROXY = '203.0.113.99';
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: `${LOAD_BALANCER},${DEALER_PROXY}`, PUBLIC_ORIGIN: 'https://banners.example.com' } });
});
afterAll(() => t.close());

/** A beacon of `shopper` forwarded by `proxy` (which appends the shopper), then the load balancer (which appends the proxy), over HTTPS. */
const proxied = (shopper: string, proxy: string, pv: string, origin = DEALER_SITE) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${origin}/new-inventory?model=civic`, pv }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin, 'x-forwarded-for': `${shopper}, ${proxy}`, 'x-forwarded-proto': 'https' },
    remoteAddress: LOAD_BALANCER,
  });

/** `n` beacons of one shopper through `proxy`, each its own page view; resolves their statuses. */
async function beacons(shopper: string, proxy: string, n: number, tag: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await proxied(shopper, proxy, `${tag}-${i}`)).statusCode);
  return statuses;
}

describe('beacons through the dealer\'s reverse proxy', () => {
  const budget = MAX_REQUESTS_PER_MINUTE.min * RATE_LIMIT_NAT_FACTOR;

  it('behind a proxy listed in TRUST_PROXY, each shopper has their own per-IP budget', async () => {
    await t.patchSecurity({ rateLimitEnabled: true, maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.min });
    const first = await beacons('198.51.100.21', DEALER_PROXY, budget + 1, 'fp-listed-a');
    expect(first.slice(0, budget).filter((s) => s !== 204)).toEqual([]);
    expect(first[budget]).toBe(429);
    // Another shopper through the same proxy: counted.
    expect((await proxied('198.51.100.22', DEALER_PROXY, 'fp-listed-b')).statusCode).toBe(204);
  });

  it('behind an unlisted proxy, all its shoppers share the proxy\'s budget', async () => {
    const first = await beacons('198.51.100.31', UNLISTED_PROXY, budget, 'fp-unlisted-a');
    expect(first.filter((s) => s !== 204)).toEqual([]);
    const other = await proxied('198.51.100.32', UNLISTED_PROXY, 'fp-unlisted-b');
    expect(other.statusCode).toBe(429);
    expect(other.json().error.hint).toBe("the dealer's Max requests per minute (Security settings)");
  });

  it("judges a proxied beacon by the page's Origin against the dealer's allowed domains", async () => {
    await t.patchSecurity({ rateLimitEnabled: false });
    expect((await proxied('198.51.100.41', DEALER_PROXY, 'fp-origin-a')).statusCode).toBe(204);
    const foreign = await proxied('198.51.100.41', DEALER_PROXY, 'fp-origin-b', 'https://copycat.example');
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.message).toBe('Origin https://copycat.example is not an allowed domain for this dealer');
  });

  it('serves the same script bytes through the proxy as directly: its base comes from where it was loaded', async () => {
    const url = `/scripts/dc-banners-${DEMO_DEALER.id}.js`;
    const direct = await t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' }, remoteAddress: LOAD_BALANCER });
    const viaProxy = await t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-for': `198.51.100.51, ${DEALER_PROXY}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'www.hondaofdemo.com' }, remoteAddress: LOAD_BALANCER });
    expect(direct.statusCode).toBe(200);
    expect(viaProxy.statusCode).toBe(200);
    expect(viaProxy.headers.etag).toBe(direct.headers.etag);
    expect(viaProxy.body).toBe(direct.body);
  });
});
