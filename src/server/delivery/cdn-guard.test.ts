/**
 * CDN auto-discovery probes go through the outbound guard. A public-looking host that
 * resolves to loopback, or a redirect to a non-allowed address, is not followed; anonymous banner
 * requests for a dealer whose stored base URL is internal neither probe it nor 302 visitors to it.
 * Local HTTP servers stand in for the CDN; a lookup function stands in for DNS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { CdnProber } from './cdn-probe';
import { createTestApp, type TestApp } from '../test-app';
import { dealers } from '../db/schema';
import { DEMO_DEALER } from '../db/seed';
import { fakeLookup, startLocalServer, type LocalServer } from '../../../tests/fixtures/http-server';

let cdn: LocalServer; // 127.0.0.1: the dealer's "CDN"
let internal: LocalServer; // 127.0.0.2: something internal the CDN redirects to

beforeAll(async () => {
  internal = await startLocalServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(), '127.0.0.2');
  cdn = await startLocalServer((req, res) => {
    if (req.url === '/to-internal.jpg') res.writeHead(302, { location: `http://internal.example.com:${internal.port}/secret.jpg` }).end();
    else if (req.url === '/to-metadata.jpg') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    else if (req.url?.startsWith('/assets/')) res.writeHead(200, { 'content-type': 'image/jpeg' }).end();
    else res.writeHead(404).end();
  });
});
afterAll(async () => {
  await cdn.close();
  await internal.close();
});

describe('CdnProber through the outbound guard', () => {
  const lookup = fakeLookup({ 'cdn.example.com': '127.0.0.1', 'internal.example.com': '127.0.0.2' });

  it('does not probe a public-looking host that resolves to loopback unless FEED_ALLOW_PRIVATE_HOSTS allows it', async () => {
    const url = () => `http://cdn.example.com:${cdn.port}/assets/civic.jpg`;
    const refused = new CdnProber({ allowPrivateHosts: false, lookup });
    expect(refused.serves(url())).toBe(false);
    await refused.settle();
    expect(refused.serves(url())).toBe(false);
    expect(cdn.hits).toEqual([]); // refused inside the lookup, before connecting

    const allowed = new CdnProber({ allowPrivateHosts: ['127.0.0.1/32'], lookup });
    allowed.serves(url());
    await allowed.settle();
    expect(allowed.serves(url())).toBe(true);
    expect(cdn.hits).toEqual(['HEAD /assets/civic.jpg']);
  });

  it('checks every redirect hop again: a redirect to an address outside the policy is not followed', async () => {
    cdn.hits.length = 0;
    const url = `http://cdn.example.com:${cdn.port}/to-internal.jpg`;
    const strict = new CdnProber({ allowPrivateHosts: ['127.0.0.1/32'], lookup });
    strict.serves(url);
    await strict.settle();
    expect(strict.serves(url)).toBe(false);
    expect(cdn.hits).toEqual(['HEAD /to-internal.jpg']);
    expect(internal.hits).toEqual([]);

    const metadata = `http://cdn.example.com:${cdn.port}/to-metadata.jpg`;
    strict.serves(metadata);
    await strict.settle();
    expect(strict.serves(metadata)).toBe(false);

    // With every private host allowed (a local setup), the same redirect is followed by hand.
    const open = new CdnProber({ allowPrivateHosts: true, lookup });
    open.serves(url);
    await open.settle();
    expect(open.serves(url)).toBe(true);
    expect(internal.hits).toEqual(['HEAD /secret.jpg']);
  });

  it('only reads, never probes, when asked not to (unknown models)', async () => {
    cdn.hits.length = 0;
    const p = new CdnProber({ allowPrivateHosts: true, lookup });
    expect(p.serves(`http://cdn.example.com:${cdn.port}/assets/x.jpg`, { probe: false })).toBe(false);
    await p.settle();
    expect(cdn.hits).toEqual([]);
  });
});

describe('banner delivery with an internal base URL (the internal-address attack)', () => {
  let t: TestApp;
  const asset = (q: string) => t.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?${q}` });

  async function setBaseUrl(app: TestApp, baseUrl: string) {
    const [row] = await app.database.db.select().from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
    await app.database.db
      .update(dealers)
      .set({ assetStorage: { ...row!.assetStorage, baseUrl, fallbackEnabled: false, customNaming: { pattern: '{model}.{ext}', variables: [] } } })
      .where(eq(dealers.id, DEMO_DEALER.id));
    app.app.dealerSites.forget(DEMO_DEALER.id); // the database bumped the version (migration 0007)
  }

  afterAll(async () => {
    await t?.close();
  });

  it('with FEED_ALLOW_PRIVATE_HOSTS unset: no probe reaches the internal server and no visitor is sent there', async () => {
    t = await createTestApp();
    // A base URL stored before settings refused private hosts (settings now refuse it): the probe guard still holds.
    await setBaseUrl(t, `http://127.0.0.1:${cdn.port}/assets`);
    cdn.hits.length = 0;
    for (let i = 0; i < 3; i++) {
      const res = await asset('model=pilot&type=header');
      await t.app.cdnProbes.settle();
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-banner-source']).toBe('placeholder');
      expect(res.headers.location).toBeUndefined();
    }
    expect(cdn.hits).toEqual([]);
    await t.close();

    // The same dealer with the CDN's address allowed: the CDN is probed and visitors are redirected.
    t = await createTestApp({ env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } });
    await setBaseUrl(t, `http://127.0.0.1:${cdn.port}/assets`);
    await asset('model=pilot&type=header');
    await t.app.cdnProbes.settle();
    t.app.dealerSites.forget(DEMO_DEALER.id);
    const res = await asset('model=pilot&type=header');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${cdn.port}/assets/pilot.jpg`);
    expect(cdn.hits).toEqual(['HEAD /assets/pilot.jpg']);

    // Unknown models (any string in a visitor's URL) start no probe at all.
    cdn.hits.length = 0;
    for (let i = 0; i < 20; i++) await asset(`model=nosuchmodel${i}&type=header`);
    await t.app.cdnProbes.settle();
    expect(cdn.hits).toEqual([]);
  });
});
