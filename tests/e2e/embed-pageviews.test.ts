/**
 * One page view, one impression per slot, whatever the dealer's page does, in Chromium with the tag
 * the Script page hands out and the dealer's counts read through its analytics API:
 * - a React 19 page on a phone that throws away and re-creates the subtree holding the slots
 *   (right after its first render, as after a hydration error, and twice more later) counts one
 *   impression per slot, all under one page-view id;
 * - a Dealer.com-style listing container swapped by AJAX twice on the same address (the second
 *   time with `&page=3` written by replaceState) is the same page view: no new impression;
 * - HTML streamed so that a shortcode is split across two network chunks: the slot is reserved,
 *   no frame shows raw shortcode text, no layout shift;
 * - a page on a host the dealer has not allowed: the banners show, nothing is counted, and the
 *   console says why and which setting to change; images refused or blocked leave no hole below
 *   the fold and shift nothing; the dealer's Script page lists the allowed
 *   domains (read-only) and how www. and the bare domain match.
 * Timers run on Playwright's paused clock where the test needs "no second impression in N seconds".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, creativeShown, newPage, recordBeacons, signedInPage, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo, pauseClock } from './harness';
import { MOBILE, observeLoad, rawTextFrames, reactBundle, siteAssets, startDemoEmbed } from './page-speed';

/** A host the demo dealer does not list, resolved by the browser to the loopback fixture site. */
const STAGING_HOST = 'staging.hondaofdemo.test';

let server: RunningServer;
let browser: Browser;
let info: ScriptInfo;
let cookie = '';
const sites: DealerSite[] = [];
const SRP = '/new-inventory?new=true&model=civic';

beforeAll(async () => {
  ({ server, browser, info } = await startDemoEmbed([`--host-resolver-rules=MAP ${STAGING_HOST} 127.0.0.1`]));
});
afterAll(() => closeAll(browser, sites, server));

/** The demo dealer's impressions as its manager's analytics API reports them (the read flushes buffered events). */
async function impressions(): Promise<number> {
  if (!cookie) cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const res = await fetch(`${server.origin}/api/dealers/honda-of-demo/analytics?period=24h`, { headers: { cookie } });
  return ((await res.json()) as { current: { impressions: number } }).current.impressions;
}

async function site(page: string, opts: Parameters<typeof startDealerSite>[2] = {}): Promise<DealerSite> {
  const s = await startDealerSite(info.scriptUrl, page, { scriptTag: info.scriptTag, ...opts, assets: { ...(await siteAssets()), ...opts.assets } });
  sites.push(s);
  return s;
}

/** The impression beacons the page sent, as `pv type` strings. */
async function impressionKeys(page: Page): Promise<string[]> {
  return (await beaconsOf(page)).filter((b) => b.event === 'impression').map((b) => `${b.pv} ${b.type}`);
}

/** A page recording its beacons whose timers run only when the test advances them. */
async function clockedPage(opts: Parameters<typeof newPage>[1] = {}): Promise<Page> {
  const page = await newPage(browser, opts);
  await recordBeacons(page);
  await pauseClock(page, new Date('2025-06-02T10:00:00Z'));
  return page;
}

describe('page-view identity', () => {
  it('React re-creating the slots on a phone: one impression per slot and page view, one page-view id', async () => {
    const s = await site('react-remount.html', { assets: { '/assets/react-remount.js': await reactBundle('react-remount.tsx') } });
    const before = await impressions();
    let expected = 0;
    for (let load = 0; load < 2; load++) {
      const page = await clockedPage({ viewport: MOBILE.viewport, deviceScaleFactor: 2, isMobile: true, hasTouch: true, userAgent: MOBILE.userAgent });
      // The page is drawn by its bundle: the snippet asks for the header creative once the first
      // banner shows, not while the bundle the first paint waits for is still downloading.
      const order: string[] = [];
      page.on('requestfinished', (r) => void (r.url().includes('/assets/react-remount.js') && order.push('bundle')));
      page.on('request', (r) => void (/\/asset\?.*type=header/.test(r.url()) && order.push('header')));
      await page.goto(s.origin + SRP);
      await page.locator('[data-generation="1"]').waitFor(); // the re-render after the first one
      await creativeShown(page, 'header');
      expect(order[0]).toBe('bundle');
      expect(order).toContain('header');
      await page.clock.runFor(1100);
      const header = async () => (await impressionKeys(page)).filter((k) => k.endsWith(' header'));
      expect(await header()).toHaveLength(1);
      for (const generation of [2, 3]) {
        await page.evaluate(() => (window as unknown as { __remount: () => void }).__remount());
        await page.locator(`[data-generation="${generation}"]`).waitFor();
        await creativeShown(page, 'header');
        await page.clock.runFor(3000);
      }
      expect(await header()).toHaveLength(1);
      const keys = await impressionKeys(page);
      expect(keys.length).toBe(new Set(keys.map((k) => k.split(' ')[1])).size); // no slot counted twice
      expect(new Set(keys.map((k) => k.split(' ')[0])).size).toBe(1); // every slot in the one page view
      expect(await page.locator('.dc-banner').count()).toBe(3); // the old slots went with their nodes
      expected += keys.length;
      await page.close();
    }
    await expect.poll(impressions).toBe(before + expected);
  });

  it('a listing container swapped by AJAX twice on the same address is the same page view', async () => {
    const listing = (url: URL) => ({ html: `<div class="card promo">[dc-banner type="primary"]</div><article class="card"><h3>Page ${url.searchParams.get('page')}</h3></article>` });
    const s = await site('listing-swap.html', { json: { '/api/listing': { delayMs: 50, body: listing } } });
    const before = await impressions();
    const page = await clockedPage();
    await page.goto(s.origin + SRP);
    for (const type of ['header', 'primary']) await creativeShown(page, type);
    await page.clock.runFor(1100);
    const first = await impressionKeys(page);
    expect(first.map((k) => k.split(' ')[1]).sort()).toEqual(['header', 'primary']);
    for (const [button, n] of [['Page 2', 2], ['Load more', 3]] as const) {
      await page.getByRole('button', { name: button }).click();
      await page.locator(`#listing[data-page="${n}"] .dc-banner`).waitFor();
      await creativeShown(page, 'primary');
      await page.clock.runFor(3000);
    }
    expect(page.url()).toContain('&page=3');
    expect(await impressionKeys(page)).toEqual(first);
    expect(await page.locator('.dc-banner[data-dc-type="primary"]').count()).toBe(1);
    expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/\[dc-banner/i);
    await expect.poll(impressions).toBe(before + 2);
    await page.close();
  });
});

describe('split HTML', () => {
  it('a shortcode split across two network chunks is reserved without raw text or layout shift, and counted once', async () => {
    const s = await site('streamed-srp.html', { chunkDelayMs: 700 });
    const page = await newPage(browser);
    // A busy phone's CPU: the parser then often appends the last chunk and finishes the document in
    // one task, before any observer runs (the rest of the shortcode arrives with readyState past 'loading').
    await (await page.context().newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await recordBeacons(page);
    await observeLoad(page, { sampleRaw: true });
    // The main script waits for the whole document: the inline snippet alone meets the split.
    let release!: () => void;
    const parsed = new Promise<void>((r) => (release = r));
    page.once('domcontentloaded', () => release());
    await page.route(info.scriptUrl, async (route) => (await parsed, route.continue()));
    await page.goto(s.origin + SRP);
    await creativeShown(page, 'header');
    await expect.poll(async () => (await impressionKeys(page)).length, { timeout: 10_000 }).toBe(1);
    const frames = await rawTextFrames(page);
    expect(frames.frames).toBeGreaterThan(10); // frames were drawn while the second chunk was on its way
    expect(frames.raw).toEqual([]);
    expect(await page.locator('.srp-banner').innerText()).toBe('Civic offers:');
    const shifts = await page.evaluate(() => (window as unknown as { __load: { shifts: Array<{ value: number }> } }).__load.shifts);
    expect(shifts.reduce((sum, x) => sum + x.value, 0), JSON.stringify(shifts)).toBe(0);
    await page.close();
  });
});

describe('refusals', () => {
  it('on a host the dealer has not allowed: banners show, nothing is counted, the console names the reason and the setting', async () => {
    const s = await site('mxs-srp.html', { assets: { '/assets/mxs.css': 'mxs.css' } });
    const before = await impressions();
    const page = await newPage(browser);
    const warnings: string[] = [];
    page.on('console', (m) => void (m.type() === 'warning' && warnings.push(m.text())));
    const port = new URL(s.origin).port;
    await page.goto(`http://${STAGING_HOST}:${port}${SRP}`);
    await creativeShown(page, 'header');
    await expect.poll(() => warnings.filter((w) => w.startsWith('dc-banners:'))).toEqual([
      `dc-banners: page not counted (403: Origin http://${STAGING_HOST}:${port} is not an allowed domain for this dealer); to change: add ${STAGING_HOST} to the dealer's Allowed domains (Security settings, admins only; example.com covers www.example.com, not the reverse)`,
    ]);
    expect(await impressions()).toBe(before);
    await page.close();
  });

  it('images refused or blocked: the console says so; empty boxes below the fold collapse, the one in view stays, nothing shifts', async () => {
    const s = await site('mxs-srp.html');
    const page = await newPage(browser, { viewport: { width: 1366, height: 500 } });
    await observeLoad(page);
    const warnings: string[] = [];
    page.on('console', (m) => void (m.type() === 'warning' && warnings.push(m.text())));
    await page.route('**/api/scripts/*/asset?*', (route) => route.abort('blockedbyclient'));
    await page.goto(s.origin + SRP);
    // Per slot: collapsed, or still reserved and in view (the upsell of the filters is below the fold).
    const state = () =>
      page.$$eval('.dc-banner', (els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return `${(el as HTMLElement).dataset.dcType} ${getComputedStyle(el).display === 'none' ? 'collapsed' : r.bottom > 0 && r.top < innerHeight ? 'in view' : 'reserved out of view'}`;
        }),
      );
    await expect.poll(async () => (await state()).find((s) => s.startsWith('upsell'))).toBe('upsell collapsed');
    await expect.poll(async () => (await state()).filter((s) => s.endsWith('out of view'))).toEqual([]);
    expect((await page.locator('.dc-banner[data-dc-type="header"]').boundingBox())!.height).toBeGreaterThan(150); // in view: still reserved
    expect(warnings).toContain(`dc-banners: no header banner image from ${server.origin} (blocked or no answer); its box collapses when out of view`);
    const shifts = await page.evaluate(() => (window as unknown as { __load: { shifts: Array<{ value: number }> } }).__load.shifts);
    expect(shifts.reduce((sum, x) => sum + x.value, 0)).toBe(0);
    await page.close();
  });

  it("the dealer's Script page lists the allowed domains, read-only, with how www. and the bare domain match", async () => {
    const page = await signedInPage(browser, server.origin, 'manager@hondaofdemo.com', 'manager123');
    await page.goto(`${server.origin}/dealer/script`);
    const section = page.getByRole('region', { name: 'Where banners are counted' });
    await expect.poll(() => section.innerText(), { timeout: 20_000 }).toContain('Allowed domains: www.hondaofdemo.com, localhost, 127.0.0.1');
    const text = await section.innerText();
    expect(text).toContain('www.example.com does not cover the bare example.com');
    expect(text).toContain('Only an administrator can change this list');
    expect(await section.locator('input, textarea, button').count()).toBe(0); // nothing to edit here
    await page.close();
  });
});
