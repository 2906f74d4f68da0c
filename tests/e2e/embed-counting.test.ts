/**
 * Honest counting, in Chromium on the mxs search page with the tag we hand out: the
 * beacons the embed script sends in each scenario and, where the server decides, the dealer's
 * counts through its analytics API.
 * - A creative that fails (404) is swapped once for the server's placeholder; its impression comes
 *   only a second after the placeholder has loaded; a slot in a `visibility:hidden` or `opacity:0`
 *   container is never counted (until it shows); a hidden tab pauses the viewability timer.
 * - A hash change or `replaceState(&sort=price)` is the same page view (no new impression); beacons
 *   carry only origin, path and the provider's model parameters.
 * - `conversion()` without a banner click sends nothing; after a click it counts once, also after a
 *   reload and a second call (per click's page view, and per lead id).
 * - A middle click counts; a 503 from the track endpoint is retried twice at most.
 * - Do-Not-Track or Global Privacy Control (the dealer respects them by default): banners show,
 *   no beacon goes out, nothing is stored in sessionStorage.
 * Timers run on Playwright's paused clock where the test needs "nothing happened in N seconds",
 * so those assertions do not depend on the machine's speed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, creativeShown, newPage, recordBeacons, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo, pauseClock } from './harness';
import { siteAssets, startDemoEmbed } from './page-speed';

let server: RunningServer;
let site: DealerSite;
let browser: Browser;
let cookie = '';
const SRP = '/new-inventory?new=true&model=civic';
const header = '.dc-banner[data-dc-type="header"]';

interface Counts {
  impressions: number;
  clicks: number;
  conversions: number;
}

/** The demo dealer's totals as its manager's analytics API reports them (the read flushes buffered events). */
async function counts(): Promise<Counts> {
  if (!cookie) cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const res = await fetch(`${server.origin}/api/dealers/honda-of-demo/analytics?period=24h`, { headers: { cookie } });
  return ((await res.json()) as { current: Counts }).current;
}

beforeAll(async () => {
  let info: ScriptInfo;
  ({ server, browser, info } = await startDemoEmbed());
  site = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: info.scriptTag, assets: await siteAssets(), pages: { '/hidden/new-inventory': 'hidden-slots.html' } });
});
afterAll(() => closeAll(browser, site, server));

/**
 * A desktop page recording its beacons; with `clock`, the page's timers run only when the test
 * advances them (page.clock.runFor), so "no impression for 5 s" takes no real time.
 */
async function openPage(opts: { clock?: boolean } = {}): Promise<Page> {
  const page = await newPage(browser);
  await recordBeacons(page);
  if (opts.clock) {
    await pauseClock(page, new Date('2025-06-02T10:00:00Z'));
  }
  return page;
}

/** Beacons of one event (and slot type) recorded on the page so far. */
async function beacons(page: Page, event: string, type?: string) {
  return (await beaconsOf(page)).filter((b) => b.event === event && (!type || b.type === type));
}

/** Makes the page's document report `state` and fires visibilitychange, as switching tabs does. */
function setVisibility(page: Page, state: 'hidden' | 'visible') {
  return page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
}

describe('viewable impressions', () => {
  it('404 creative: swapped once for the placeholder, counted only a second after the placeholder loaded', async () => {
    const page = await openPage({ clock: true });
    let held: Route | undefined;
    let releasePlaceholder!: () => void;
    const released = new Promise<void>((r) => (releasePlaceholder = r));
    await page.route('**/api/scripts/*/asset?*', async (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.get('type') !== 'header') return route.continue();
      if (url.searchParams.get('placeholder') !== '1') return route.fulfill({ status: 404, body: '' });
      held = route;
      await released;
      await route.continue();
    });
    await page.goto(site.origin + SRP, { waitUntil: 'domcontentloaded' }); // 'load' would wait for the held placeholder
    await expect.poll(() => page.locator(`${header} img`).getAttribute('src'), { timeout: 20_000 }).toMatch(/&placeholder=1$/);
    await expect.poll(() => held !== undefined).toBe(true);
    await page.clock.runFor(5000); // the placeholder is still on its way: nothing to count
    expect(await beacons(page, 'impression', 'header')).toEqual([]);
    releasePlaceholder();
    const src = await creativeShown(page, 'header');
    expect(src).toMatch(/type=header.*&placeholder=1$/);
    expect(await page.locator(`${header} img`).evaluate((img: HTMLImageElement) => getComputedStyle(img).visibility)).toBe('visible');
    await page.clock.runFor(900);
    expect(await beacons(page, 'impression', 'header')).toEqual([]);
    await page.clock.runFor(200);
    expect(await beacons(page, 'impression', 'header')).toHaveLength(1);
    await page.close();
  });

  it('when the placeholder fails too, the reserved box stays empty (no broken image) and nothing is counted', async () => {
    const page = await openPage({ clock: true });
    await page.route('**/api/scripts/*/asset?*', (route) => (new URL(route.request().url()).searchParams.get('type') === 'header' ? route.fulfill({ status: 404, body: '' }) : route.continue()));
    await page.goto(site.origin + SRP);
    const img = page.locator(`${header} img`);
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.src.endsWith('&placeholder=1') && getComputedStyle(i).visibility), { timeout: 20_000 }).toBe('hidden');
    const box = await page.locator(header).boundingBox();
    expect(box!.height).toBeGreaterThan(150); // still reserved: nothing below moves
    await page.clock.runFor(5000);
    expect(await beacons(page, 'impression', 'header')).toEqual([]);
    await page.close();
  });

  it('a slot in a visibility:hidden or opacity:0 container is not counted until it shows', async () => {
    const page = await openPage({ clock: true });
    await page.goto(`${site.origin}/hidden${SRP}`);
    for (const slot of ['header', 'primary', 'upsell']) await creativeShown(page, slot);
    await page.clock.runFor(5000);
    expect((await beacons(page, 'impression')).map((b) => b.type)).toEqual(['header']);
    // The carousel turns to the slide: the next CSS check starts the second.
    await page.evaluate(() => (document.getElementById('slide-2')!.style.opacity = '1'));
    await page.clock.runFor(600);
    await page.clock.runFor(1100);
    expect((await beacons(page, 'impression')).map((b) => b.type)).toEqual(['header', 'upsell']);
    await page.clock.runFor(5000);
    expect(await beacons(page, 'impression', 'primary')).toEqual([]); // the tab panel never showed
    await page.close();
  });

  it('a hidden tab pauses the viewability timer: no impression while hidden, a full second once visible again', async () => {
    const page = await openPage({ clock: true });
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await page.clock.runFor(500); // half-way
    await setVisibility(page, 'hidden');
    await page.clock.runFor(10_000);
    expect(await beacons(page, 'impression')).toEqual([]);
    await setVisibility(page, 'visible');
    await page.clock.runFor(900); // the second starts again: 500 ms before hiding do not count
    expect(await beacons(page, 'impression', 'header')).toEqual([]);
    await page.clock.runFor(200);
    expect(await beacons(page, 'impression', 'header')).toHaveLength(1);
    await page.close();
  });
});

describe('page views', () => {
  it('a hash change or replaceState(&sort=price) keeps the page view: same banner, no new impression; a model change is a new one', async () => {
    const page = await openPage({ clock: true });
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await page.clock.runFor(1100);
    const [first] = await beacons(page, 'impression', 'header');
    expect(first).toBeDefined();
    await page.locator(`${header} img`).evaluate((img) => img.setAttribute('data-seen', '1'));
    await page.evaluate(() => (location.hash = '#vehicle-3'));
    await page.clock.runFor(1000);
    await page.evaluate(() => history.replaceState({}, '', `${location.pathname}${location.search}&sort=price&email=jane%40example.com${location.hash}`));
    await page.clock.runFor(3000);
    expect(await beacons(page, 'impression', 'header')).toHaveLength(1);
    expect(await page.locator(`${header} img`).getAttribute('data-seen')).toBe('1'); // not re-created
    // Beacons keep origin, path and the provider's model parameters only.
    for (const b of await beaconsOf(page)) expect(b.url).toBe(`${site.origin}/new-inventory?new=true&model=civic`);

    await page.evaluate(() => history.pushState({}, '', '/new-inventory?new=true&model=accord#top'));
    await page.clock.runFor(100);
    await creativeShown(page, 'header');
    await page.clock.runFor(1100);
    const impressions = await beacons(page, 'impression', 'header');
    expect(impressions.map((b) => b.model)).toEqual(['Civic', 'Accord']);
    expect(impressions[1]!.pv).not.toBe(first!.pv);
    await page.close();
  });
});

describe('clicks and conversions', () => {
  it('conversion() without a banner click sends nothing; after a click it counts once, also after a reload, a second call or a repeated lead id', async () => {
    const before = await counts();
    const page = await openPage();
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await page.evaluate(() => (window as unknown as { dcBanners: { conversion(o: object): void } }).dcBanners.conversion({ model: 'civic', leadId: 'lead-41' }));
    expect(await beacons(page, 'conversion')).toEqual([]);
    // The shopper looks at the banner for a second (its impression is counted), then clicks it.
    await expect.poll(async () => (await beacons(page, 'impression', 'header')).length, { timeout: 10_000 }).toBe(1);

    // A click (sendBeacon), then the lead form on another page of the site (its query holds the shopper's details).
    await page.locator(`${header} a`).click();
    await page.waitForURL(/fq=1/);
    await expect.poll(async () => (await counts()).clicks, { timeout: 10_000 }).toBe(before.clicks + 1);
    const lead = `${site.origin}/contact?first=Jane&email=jane%40example.com#form`;
    const convert = async (leadId: string) => {
      const accepted = page.waitForResponse((r) => r.url().endsWith('/api/analytics/track') && r.request().postData()?.includes('"event":"conversion"') === true);
      await page.evaluate((id) => (window as unknown as { dcBanners: { conversion(o: object): void } }).dcBanners.conversion({ model: 'civic', leadId: id }), leadId);
      expect((await accepted).status()).toBe(204);
    };
    await page.goto(lead);
    await convert('lead-42');
    const [conversion] = await beacons(page, 'conversion');
    expect(conversion!.url).toBe(`${site.origin}/contact`); // no name, e-mail or hash
    expect(conversion!.leadId).toBe('lead-42');
    expect(await counts()).toMatchObject({ clicks: before.clicks + 1, conversions: before.conversions + 1 });

    await page.reload();
    await convert('lead-42'); // the thank-you page reloaded
    await convert('lead-43'); // a second lead from the same click
    expect((await counts()).conversions).toBe(before.conversions + 1);

    // Another click (a new page view), then the first lead again: once per lead.
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await expect.poll(async () => (await beacons(page, 'impression', 'header')).length, { timeout: 10_000 }).toBe(1);
    await page.locator(`${header} a`).click();
    await page.waitForURL(/fq=1/);
    await expect.poll(async () => (await counts()).clicks, { timeout: 10_000 }).toBe(before.clicks + 2);
    await page.goto(lead);
    await convert('lead-42');
    expect((await counts()).conversions).toBe(before.conversions + 1);
    await convert('lead-44');
    expect((await counts()).conversions).toBe(before.conversions + 2);
    await page.close();
  });

  it('a middle click (new tab) counts as a click', async () => {
    const before = await counts();
    const page = await openPage();
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await expect.poll(async () => (await beacons(page, 'impression', 'header')).length, { timeout: 10_000 }).toBe(1);
    const popup = page.context().waitForEvent('page');
    await page.locator(`${header} a`).click({ button: 'middle' });
    await (await popup).close();
    expect((await beaconsOf(page)).filter((b) => b.type === 'header').map((b) => b.event)).toEqual(['impression', 'click']);
    await expect.poll(async () => (await counts()).clicks, { timeout: 10_000 }).toBe(before.clicks + 1);
    expect(new URL(page.url()).pathname).toBe('/new-inventory'); // the page itself stayed
    await page.close();
  });
});

describe('transport', () => {
  const isHeaderBeacon = (body: unknown) => typeof body === 'string' && body.includes('"type":"header"');

  /**
   * Counts the header's track requests and answers the first `fail` of them 503 (other slots' go
   * through); `__settled` in the page counts the header's track fetches whose response the script has handled.
   */
  async function flakyTrack(page: Page, fail: number) {
    const state = { requests: 0 };
    await page.route('**/api/analytics/track', (route) =>
      isHeaderBeacon(route.request().postData()) && ++state.requests <= fail ? route.fulfill({ status: 503, body: '{"error":"full"}' }) : route.continue(),
    );
    await page.addInitScript(`(() => {
      window.__settled = 0;
      const original = window.fetch.bind(window);
      window.fetch = (input, init) => {
        const p = original(input, init);
        // A microtask queued by the first reaction runs after the script's own .then on the same promise.
        if (String(input).includes('/api/analytics/track') && (${isHeaderBeacon.toString()})(init && init.body)) {
          p.finally(() => queueMicrotask(() => window.__settled++)).catch(() => undefined);
        }
        return p;
      };
    })();`);
    return state;
  }
  const settled = (page: Page) => page.evaluate(() => (window as unknown as { __settled: number }).__settled);

  it('a 503 from the track endpoint is retried twice, each after a jittered pause of 1-3 s', async () => {
    const page = await openPage({ clock: true });
    const track = await flakyTrack(page, Infinity);
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await page.clock.runFor(1100);
    await expect.poll(() => settled(page)).toBeGreaterThanOrEqual(1);
    expect(track.requests).toBe(1);
    for (const n of [2, 3]) {
      await page.clock.runFor(900); // a retry waits at least 1 s
      expect(track.requests).toBe(n - 1);
      await page.clock.runFor(2200); // and at most 3 s
      await expect.poll(() => track.requests).toBe(n);
      await expect.poll(() => settled(page)).toBe(n);
    }
    await page.clock.runFor(30_000);
    expect(track.requests).toBe(3); // the second retry's own 503 is final
    await page.close();
  });

  it('a retried beacon that gets through is counted once', async () => {
    const before = await counts();
    const page = await openPage({ clock: true });
    const track = await flakyTrack(page, 1);
    await page.goto(site.origin + SRP);
    await creativeShown(page, 'header');
    await page.clock.runFor(1100);
    await expect.poll(() => settled(page)).toBe(1);
    await page.clock.runFor(3100);
    await expect.poll(() => settled(page)).toBe(2);
    expect(track.requests).toBe(2);
    const impressions = await beacons(page, 'impression');
    const sentTwice = impressions.filter((b) => b.type === 'header');
    expect(sentTwice.map((b) => b.pv)).toEqual([sentTwice[0]!.pv, sentTwice[0]!.pv]); // the same beacon, retried
    // One impression per slot that sent one (the header's retry included): the primary is in view too.
    expect((await counts()).impressions).toBe(before.impressions + new Set(impressions.map((b) => b.type)).size);
    await page.close();
  });
});

describe('privacy signals', () => {
  for (const [signal, init] of [
    ['Do-Not-Track', () => Object.defineProperty(Navigator.prototype, 'doNotTrack', { configurable: true, get: () => '1' })],
    ['Global Privacy Control', () => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { configurable: true, get: () => true })],
  ] as const) {
    it(`${signal}: banners show, no beacon goes out, nothing is stored in sessionStorage`, async () => {
      const page = await openPage({ clock: true });
      await page.addInitScript(init);
      let requests = 0;
      await page.route('**/api/analytics/track', (route) => (requests++, route.continue()));
      await page.goto(site.origin + SRP);
      for (const slot of ['header', 'primary', 'upsell']) await creativeShown(page, slot);
      await page.clock.runFor(5000);
      await page.evaluate(() => document.addEventListener('click', (e) => e.preventDefault())); // stay on the page
      await page.locator(`${header} a`).click();
      await page.evaluate(() => (window as unknown as { dcBanners: { conversion(o: object): void } }).dcBanners.conversion({ model: 'civic', leadId: 'lead-9' }));
      await page.clock.runFor(5000);
      expect(await beaconsOf(page)).toEqual([]);
      expect(requests).toBe(0);
      expect(await page.evaluate(() => Object.keys(sessionStorage).length)).toBe(0);
      await page.close();
    });
  }
});
