/**
 * The dealer's logo in placeholder banners, fetched in the background through the
 * outbound guard, validated and downscaled with sharp, inlined as a data: URI once
 * available; a logo on a private address is refused unless FEED_ALLOW_PRIVATE_HOSTS allows it.
 * Local HTTP servers stand in for the logo host; a lookup function stands in for DNS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { eq } from 'drizzle-orm';
import { LOGO_BOX, LogoFetcher } from './logo-fetcher';
import { createTestApp, type TestApp } from '../test-app';
import { dealers } from '../db/schema';
import { DEMO_DEALER } from '../db/seed';
import { fakeLookup, startLocalServer, type LocalServer } from '../../../tests/fixtures/http-server';

/** Answers each path of `routes` with its body (200) or redirect (302), anything else 404. */
function serveRoutes(routes: Record<string, { type: string; body: Buffer | string } | { location: string }>): http.RequestListener {
  return (req, res) => {
    const r = routes[req.url ?? ''];
    if (!r) return res.writeHead(404).end();
    if ('location' in r) return res.writeHead(302, { location: r.location }).end();
    res.writeHead(200, { 'content-type': r.type }).end(r.body);
  };
}

let logos: LocalServer; // 127.0.0.1: the dealer's logo host
let internal: LocalServer; // 127.0.0.2: something internal
let logoPng: Buffer;

beforeAll(async () => {
  logoPng = await sharp({ create: { width: 1200, height: 300, channels: 4, background: { r: 200, g: 0, b: 0, alpha: 1 } } })
    .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="150"><circle cx="75" cy="75" r="60" fill="#fff"/></svg>'), left: 0, top: 0 }])
    .png()
    .toBuffer();
  const noise = await sharp(randomBytes(1200 * 1200 * 3), { raw: { width: 1200, height: 1200, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
  const bomb = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#ffffff' } }).png().toBuffer();
  internal = await startLocalServer(serveRoutes({ '/secret.png': { type: 'image/png', body: logoPng } }), '127.0.0.2');
  logos = await startLocalServer(serveRoutes({
    '/logo.png': { type: 'image/png', body: logoPng },
    '/logo-as-octets': { type: 'application/octet-stream', body: logoPng },
    '/page.html': { type: 'text/html', body: '<html>not a logo</html>' },
    '/logo.svg': { type: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' },
    '/huge.png': { type: 'image/png', body: noise },
    '/bomb.png': { type: 'image/png', body: bomb },
    '/corrupt.png': { type: 'image/png', body: logoPng.subarray(0, 200) },
    '/to-internal.png': { location: `http://internal.example.com:${internal.port}/secret.png` },
  }));
});
afterAll(async () => {
  await logos.close();
  await internal.close();
});

describe('LogoFetcher', () => {
  // Several names for the one logo host: Node's keep-alive agent reuses a socket per host name
  // (no new lookup), so each policy below gets a name no earlier test connected to.
  const lookup = fakeLookup({ 'logos.example.com': '127.0.0.1', 'strict.example.com': '127.0.0.1', 'again.example.com': '127.0.0.1', 'internal.example.com': '127.0.0.2' });
  const url = (path: string, host = 'logos.example.com') => `http://${host}:${logos.port}${path}`;

  it('never waits: no logo at first, the downscaled PNG data URI once the background fetch settled', async () => {
    const f = new LogoFetcher({ allowPrivateHosts: ['127.0.0.1/32'], lookup });
    expect(f.logo(url('/logo.png'))).toBeNull();
    expect(f.logo(url('/logo.png'))).toBeNull(); // one fetch per URL at a time
    await f.settle();
    const logo = f.logo(url('/logo.png'))!;
    expect(logo.dataUri).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]+$/);
    expect([logo.width, logo.height]).toEqual([LOGO_BOX.width, 100]); // 1200x300 into 400x200, aspect kept
    const png = Buffer.from(logo.dataUri.split(',')[1]!, 'base64');
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 400, height: 100 });
    expect(logo.tag).toMatch(/^[\w-]{12}$/);
    expect(logos.hits.filter((h) => h === 'GET /logo.png')).toHaveLength(1);
    expect(f.logo('')).toBeNull();
  });

  it('tells the format from the bytes: a PNG served as octets is fine, HTML, SVG, corrupt, huge and over-pixel images are not', async () => {
    const f = new LogoFetcher({ allowPrivateHosts: ['127.0.0.1/32'], lookup });
    const paths = ['/logo-as-octets', '/page.html', '/logo.svg', '/corrupt.png', '/huge.png', '/bomb.png', '/missing.png'];
    for (const p of paths) f.logo(url(p));
    await f.settle();
    expect(paths.map((p) => [p, f.logo(url(p)) !== null])).toEqual([
      ['/logo-as-octets', true],
      ['/page.html', false],
      ['/logo.svg', false],
      ['/corrupt.png', false],
      ['/huge.png', false], // over LOGO_MAX_BYTES
      ['/bomb.png', false], // 36 MP: refused from its header
      ['/missing.png', false],
    ]);
  });

  it('refuses a logo on a private address unless FEED_ALLOW_PRIVATE_HOSTS allows it, and checks redirect hops', async () => {
    logos.hits.length = 0;
    const strict = new LogoFetcher({ allowPrivateHosts: false, lookup });
    for (const u of [url('/logo.png', 'strict.example.com'), `http://127.0.0.1:${logos.port}/logo.png`, 'file:///etc/passwd', 'not a url']) strict.logo(u);
    await strict.settle();
    expect(strict.logo(url('/logo.png', 'strict.example.com'))).toBeNull();
    expect(logos.hits).toEqual([]); // refused before connecting

    const onlyLogoHost = new LogoFetcher({ allowPrivateHosts: ['127.0.0.1/32'], lookup });
    onlyLogoHost.logo(url('/to-internal.png'));
    await onlyLogoHost.settle();
    expect(onlyLogoHost.logo(url('/to-internal.png'))).toBeNull();
    expect(internal.hits).toEqual([]);
    // With every private host allowed (a local setup), the same redirect is followed by hand.
    const open = new LogoFetcher({ allowPrivateHosts: true, lookup });
    open.logo(url('/to-internal.png', 'again.example.com'));
    await open.settle();
    expect(open.logo(url('/to-internal.png', 'again.example.com'))).not.toBeNull();
    expect(internal.hits).toEqual(['GET /secret.png']);
  });

  it('forgets answers when its policy changes; a fetch in flight under the old policy stores nothing', async () => {
    // IP-literal URLs: judged before connecting (a keep-alive socket of an earlier fetch is never asked).
    const u = `http://127.0.0.1:${logos.port}/logo.png`;
    const inFlight = `http://127.0.0.1:${logos.port}/logo-as-octets`;
    const f = new LogoFetcher({ allowPrivateHosts: ['127.0.0.1/32'], lookup });
    f.logo(u);
    await f.settle();
    expect(f.logo(u)).not.toBeNull();
    f.logo(inFlight);
    f.configure({ allowPrivateHosts: false, lookup });
    expect(f.logo(u)).toBeNull();
    await f.settle();
    expect(f.logo(u)).toBeNull();
    expect(f.logo(inFlight)).toBeNull();
  });
});

describe('placeholder banners with the dealer branding and logo (banner delivery)', () => {
  let t: TestApp | undefined;
  const banner = (app: TestApp) => app.app.inject({ method: 'GET', url: `/api/scripts/${DEMO_DEALER.id}/asset?model=pilot&type=header` });

  async function setBranding(app: TestApp, logoUrl: string) {
    await app.database.db
      .update(dealers)
      .set({ branding: { primaryColor: '#0A2540', secondaryColor: '#FFD166', logoUrl, customCss: '', fontFamily: 'Georgia, serif' } })
      .where(eq(dealers.id, DEMO_DEALER.id));
    app.app.dealerSites.forget(DEMO_DEALER.id); // the database bumped the version (migration 0007)
  }

  afterAll(async () => {
    await t?.close();
  });

  it('draws the placeholder in the branding colours and font; the logo is refused on a private address by default', async () => {
    t = await createTestApp();
    // A logo URL stored before the settings' URL checks (or one whose name resolves privately): the fetch guard still holds.
    await setBranding(t, `http://127.0.0.1:${logos.port}/logo.png`);
    logos.hits.length = 0;
    for (let i = 0; i < 2; i++) {
      const res = await banner(t);
      await t.app.caches.logos.settle();
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-banner-source']).toBe('placeholder');
      expect(res.body).toContain('fill="#0A2540"');
      expect(res.body).toContain('stroke="#FFD166"');
      expect(res.body).toContain('font-family="Georgia, &apos;Times New Roman&apos;, Times, serif"');
      expect(res.body).not.toContain('<image');
    }
    expect(logos.hits).toEqual([]);
    await t.close();
    t = undefined;
  });

  it('inlines the logo once the background fetch settled, with a new ETag (FEED_ALLOW_PRIVATE_HOSTS allows the host)', async () => {
    t = await createTestApp({ env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } });
    await setBranding(t, `http://127.0.0.1:${logos.port}/logo.png`);
    logos.hits.length = 0;
    const first = await banner(t);
    expect(first.statusCode).toBe(200);
    expect(first.body).not.toContain('<image'); // delivery never waits for the logo
    await t.app.caches.logos.settle();
    const second = await banner(t);
    expect(second.body).toMatch(/<image href="data:image\/png;base64,[A-Za-z0-9+/=]+"/);
    expect(second.body).toContain('fill="#0A2540"');
    expect(second.headers.etag).not.toBe(first.headers.etag);
    expect((await sharp(Buffer.from(second.body)).metadata()).format).toBe('svg');
    // Later requests use the cached answer and bytes: one fetch in all.
    await banner(t);
    await t.app.caches.logos.settle();
    expect(logos.hits).toEqual(['GET /logo.png']);
  });
});
