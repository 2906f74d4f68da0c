/**
 * Empty banner boxes go without moving what the shopper is looking at, in Chromium with the tag the
 * Script page hands out (inline snippet + async script) on a long search page (the header and an
 * upsell above the fold, a primary banner far below):
 * - our script blocked (an ad blocker): the console says so once; the box below the fold collapses
 *   at once, the empty one in view stays until the shopper scrolls it away, the header keeps the
 *   creative the snippet requested early (unlinked); CLS 0, no raw shortcode ever painted;
 * - our script answered but never starting: the boxes stay until SCRIPT_GRACE_MS after the load
 *   event, then the same;
 * - a header image request that never answers: IMAGE_TIMEOUT_MS later the placeholder shows (its
 *   impression names the placeholder, never the hung creative); when the placeholder hangs too,
 *   the box stays empty while in view, collapses once scrolled away, and nothing is counted;
 * - the server refusing images (the dealer's Require HTTPS on a page served over HTTP: 403 for the
 *   creative and the placeholder): the console says so per slot, the empty boxes collapse out of
 *   view, nothing shifts, nothing is counted.
 * Timers run on Playwright's paused clock where a test waits on time. The server sits behind a
 * proxy at a non-loopback public origin (dcb.test), so that the dealer's Require HTTPS applies.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, creativeShown, fetchScriptInfo, freePort, launchBrowser, newPage, recordBeacons, startDealerSite, startServer, type DealerSite, type RunningServer, type ScriptInfo, pauseClock } from './harness';
import { observeLoad, rawTextFrames, siteAssets, uploadCreatives } from './page-speed';
import { IMAGE_TIMEOUT_MS, SCRIPT_GRACE_MS } from '../../src/domain/page-constants';

const DEALER = 'honda-of-demo';
const SRP = '/new-inventory?new=true&model=civic';
/** The server's public origin's host, resolved by the browser to the loopback proxy in front of it. */
const PUBLIC_HOST = 'dcb.test';
/** A viewport where the header and the upsell are above the fold and the primary banner far below. */
const VIEWPORT = { width: 1366, height: 1200 };

let server: RunningServer;
let proxy: http.Server;
let browser: Browser;
let info: ScriptInfo;
let site: DealerSite;
/** The server's answers to banner image requests, as `type status` (recorded by the proxy: the browser hides a refused image's answer). */
const imageAnswers: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  const publicOrigin = `http://${PUBLIC_HOST}:${port}`;
  server = await startServer({ PUBLIC_ORIGIN: publicOrigin });
  proxy = http.createServer((req, res) => {
    const upstream = http.request(`${server.origin}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const url = new URL(req.url ?? '/', publicOrigin);
      if (url.pathname.endsWith('/asset')) imageAnswers.push(`${url.searchParams.get('type')} ${answer.statusCode}`);
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  browser = await launchBrowser([`--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`], { own: true });
  await uploadCreatives(server.origin, DEALER, 'honda', 'civic', 'accord');
  await requireHttps(false); // served over plain HTTP here; the refusal test turns it on
  info = await fetchScriptInfo(server.origin, DEALER);
  site = await startDealerSite(info.scriptUrl, 'long-srp.html', { scriptTag: info.scriptTag, assets: await siteAssets(), vars: { UPSELL: 'yes' } });
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  await closeAll(browser, site, server);
});

/** Sets the demo dealer's Require HTTPS as its admin would (Security settings). */
async function requireHttps(on: boolean): Promise<void> {
  const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  const { dealer } = (await (await fetch(`${server.origin}/api/dealers/${DEALER}`, { headers: { cookie: admin } })).json()) as { dealer: { security: Record<string, unknown> } };
  const saved = await fetch(`${server.origin}/api/admin/dealers/${DEALER}/settings`, {
    method: 'PUT',
    headers: { cookie: admin, 'content-type': 'application/json', origin: server.origin },
    body: JSON.stringify({ security: { ...dealer.security, requireHttps: on } }),
  });
  expect(saved.status, await saved.text()).toBe(200);
}

/** A page of VIEWPORT recording its beacons, layout shifts and raw-text frames, and its console warnings. */
async function watchedPage(opts: { clock?: boolean } = {}): Promise<{ page: Page; warnings: string[] }> {
  const page = await newPage(browser, { viewport: VIEWPORT });
  await recordBeacons(page);
  await observeLoad(page, { sampleRaw: true });
  if (opts.clock) {
    await pauseClock(page, new Date('2025-06-02T10:00:00Z'));
  }
  const warnings: string[] = [];
  page.on('console', (m) => void (m.type() === 'warning' && m.text().startsWith('dc-banners:') && warnings.push(m.text())));
  return { page, warnings };
}

/** Each slot of the page by type: collapsed, reserved in view or reserved out of view, its height, and whether it shows a drawn image and a link. */
function slots(page: Page): Promise<Record<string, { state: string; height: number; image: boolean; linked: boolean }>> {
  return page.$$eval('.dc-banner', (els) =>
    Object.fromEntries(
      els.map((el) => {
        const r = el.getBoundingClientRect();
        const img = el.querySelector('img');
        const state = getComputedStyle(el).display === 'none' ? 'collapsed' : r.bottom > 0 && r.top < innerHeight ? 'in view' : 'out of view';
        const image = !!img && img.isConnected && img.naturalWidth > 0 && getComputedStyle(img).visibility !== 'hidden';
        return [(el as HTMLElement).dataset.dcType, { state, height: Math.round(r.height), image, linked: !!el.querySelector('a[href]') }];
      }),
    ),
  );
}
const stateOf = async (page: Page, type: string) => (await slots(page))[type]?.state;
/** stateOf on a page whose clock is paused: its animation frames (one collapse each) run only as the clock moves. */
const clockedStateOf = async (page: Page, type: string) => (await page.clock.runFor(50), stateOf(page, type));

/** The sum of the page's layout shifts without recent input (CLS over the whole visit). */
const cls = (page: Page) => page.evaluate(() => (window as unknown as { __load: { shifts: Array<{ value: number }> } }).__load.shifts.reduce((s, x) => s + x.value, 0));

/** Scrolls the window so the top of the page (the header and the upsell) is out of view. */
const scrollPastTop = (page: Page) => page.evaluate(() => window.scrollTo(0, 1400));

describe('our script never takes over', () => {
  it('blocked: one console warning; the box below the fold collapses, the empty one in view when scrolled away, the header keeps its creative; CLS 0', async () => {
    const { page, warnings } = await watchedPage();
    await page.route(info.scriptUrl, (route) => route.abort('blockedbyclient'));
    await page.goto(site.origin + SRP);
    await expect.poll(() => stateOf(page, 'primary')).toBe('collapsed');
    // The header shows the creative the snippet asked for early (unlinked, uncounted); the upsell's box stays reserved and empty while in view.
    await expect.poll(async () => (await slots(page)).header).toMatchObject({ state: 'in view', image: true, linked: false });
    expect((await slots(page)).upsell).toMatchObject({ state: 'in view', image: false, linked: false });
    expect((await slots(page)).upsell!.height).toBeGreaterThan(500); // 350x564 at the dealer's size
    expect(warnings).toEqual([`dc-banners: ${info.scriptUrl} did not load (blocked, or its server is down); empty boxes collapse out of view`]);
    expect(await cls(page)).toBe(0);

    await scrollPastTop(page);
    await expect.poll(() => stateOf(page, 'upsell')).toBe('collapsed');
    expect((await slots(page)).header).toMatchObject({ state: 'out of view', image: true }); // a visible banner is kept
    expect(await cls(page)).toBe(0); // scroll anchoring kept what is on screen in place
    expect((await rawTextFrames(page)).raw).toEqual([]);
    expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/\[dc-banner/i);
    expect(await beaconsOf(page)).toEqual([]);
    expect(warnings).toHaveLength(1);
    await page.close();
  });

  it(`answered but never started: the boxes stay until ${SCRIPT_GRACE_MS} ms after the load event, then go out of view`, async () => {
    const { page, warnings } = await watchedPage({ clock: true });
    // A script that runs but never takes over (an old or broken copy served in its place).
    await page.route(info.scriptUrl, (route) => route.fulfill({ contentType: 'text/javascript', body: '/* not the banner script */' }));
    await page.goto(site.origin + SRP); // resolves after the load event
    await page.clock.runFor(SCRIPT_GRACE_MS - 100);
    expect(await stateOf(page, 'primary')).toBe('out of view');
    expect(warnings).toEqual([]);
    await page.clock.runFor(100);
    await expect.poll(() => clockedStateOf(page, 'primary')).toBe('collapsed');
    expect(await stateOf(page, 'upsell')).toBe('in view');
    expect(warnings).toEqual([`dc-banners: the banner script has not started ${SCRIPT_GRACE_MS / 1000} s after load (is its tag on the page?); empty boxes collapse out of view`]);
    expect(await cls(page)).toBe(0);
    await page.close();
  });
});

describe('an image that never answers', () => {
  /** Holds header image requests for ever (`placeholder` too: also the placeholder's); the rest go through. */
  const hangHeader = (page: Page, placeholder: boolean) =>
    page.route('**/api/scripts/*/asset?*', (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.get('type') === 'header' && (placeholder || url.searchParams.get('placeholder') !== '1')) return; // never answered
      return route.continue();
    });
  /** Waits until the main script has taken the header slot (its image element is in the slot's link). */
  const headerTaken = (page: Page) => page.locator('.dc-banner[data-dc-type="header"] a img').waitFor({ state: 'attached' });
  const headerImpressions = async (page: Page) => (await beaconsOf(page)).filter((b) => b.event === 'impression' && b.type === 'header');

  it(`is given up after ${IMAGE_TIMEOUT_MS} ms: the placeholder shows, and only the placeholder is counted`, async () => {
    const { page } = await watchedPage({ clock: true });
    await hangHeader(page, false);
    await page.goto(site.origin + SRP, { waitUntil: 'domcontentloaded' }); // 'load' waits for the hung image
    await headerTaken(page);
    await page.clock.runFor(IMAGE_TIMEOUT_MS - 100);
    expect(await page.locator('.dc-banner[data-dc-type="header"] a img').getAttribute('src')).not.toMatch(/placeholder/);
    expect(await headerImpressions(page)).toEqual([]);
    await page.clock.runFor(100);
    expect(await creativeShown(page, 'header')).toMatch(/type=header.*&placeholder=1$/);
    await page.clock.runFor(1100);
    await expect.poll(async () => (await headerImpressions(page)).map((b) => (b as { asset?: string }).asset)).toEqual([expect.stringMatching(/&placeholder=1$/)]);
    expect(await cls(page)).toBe(0);
    await page.close();
  });

  it('with its placeholder hanging too: the box stays empty in view, collapses when scrolled away, nothing is counted', async () => {
    const { page, warnings } = await watchedPage({ clock: true });
    await hangHeader(page, true);
    await page.goto(site.origin + SRP, { waitUntil: 'domcontentloaded' });
    await headerTaken(page);
    const img = page.locator('.dc-banner[data-dc-type="header"] a img');
    await page.clock.runFor(IMAGE_TIMEOUT_MS);
    await expect.poll(() => img.getAttribute('src')).toMatch(/&placeholder=1$/);
    await page.clock.runFor(IMAGE_TIMEOUT_MS);
    await expect.poll(() => img.evaluate((i) => getComputedStyle(i).visibility)).toBe('hidden');
    expect(warnings).toContain(`dc-banners: no header banner image from ${new URL(info.scriptUrl).origin} (blocked or no answer); its box collapses when out of view`);
    expect((await slots(page)).header).toMatchObject({ state: 'in view', image: false });
    expect((await slots(page)).header!.height).toBeGreaterThan(150); // still reserved: nothing in view moves
    await page.clock.runFor(5000);
    expect(await headerImpressions(page)).toEqual([]);
    await scrollPastTop(page);
    await expect.poll(() => clockedStateOf(page, 'header')).toBe('collapsed');
    expect(await cls(page)).toBe(0);
    expect(await headerImpressions(page)).toEqual([]);
    await page.close();
  });
});

describe('the server refusing', () => {
  it("Require HTTPS on a page over HTTP: creative and placeholder refused (403), the console says so, empty boxes collapse out of view, nothing is counted", async () => {
    await requireHttps(true);
    try {
      const { page, warnings } = await watchedPage();
      imageAnswers.length = 0;
      await page.goto(site.origin + SRP);
      await expect.poll(() => stateOf(page, 'primary')).toBe('collapsed');
      await expect.poll(async () => (await slots(page)).header).toMatchObject({ state: 'in view', image: false });
      // Every creative and placeholder refused by the server: the header's (the snippet's early request among them), the upsell's and the primary's.
      expect(new Set(imageAnswers)).toEqual(new Set(['header 403', 'upsell 403', 'primary 403']));
      expect(imageAnswers.length).toBeGreaterThanOrEqual(6);
      const origin = new URL(info.scriptUrl).origin;
      await expect.poll(() => warnings).toEqual(
        expect.arrayContaining([
          `dc-banners: no header banner image from ${origin} (blocked or no answer); its box collapses when out of view`,
          `dc-banners: no upsell banner image from ${origin} (blocked or no answer); its box collapses when out of view`,
        ]),
      );
      expect(await beaconsOf(page)).toEqual([]); // nothing loaded, nothing to count
      expect(await cls(page)).toBe(0);
      await scrollPastTop(page);
      await expect.poll(async () => [await stateOf(page, 'header'), await stateOf(page, 'upsell')]).toEqual(['collapsed', 'collapsed']);
      expect(await cls(page)).toBe(0);
      await page.close();
    } finally {
      await requireHttps(false);
    }
  });
});
