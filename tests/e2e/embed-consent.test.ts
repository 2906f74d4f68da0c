/**
 * Consent in Chromium (README "Consent"): the demo dealer's mxs search page with the tag the
 * Script page hands out, and before it a stand-in consent management platform as such pages have
 * one: an IAB TCF v2 CMP (`__tcfapi`, the GDPR applying) that also sets Google Consent Mode
 * (`gtag('consent', 'default' | 'update', ...)` into the dataLayer), its choice kept in
 * localStorage as a CMP keeps it in its cookie. The page's timers run only when the test
 * advances them (page.clock), so "nothing sent after five seconds in view" takes no real time.
 * - Analytics denied: the banners show, and nothing at all is sent (no impression, no click, no
 *   dataLayer event) or stored (no sessionStorage key), by the page's own calls and by the
 *   server's count.
 * - The shopper then accepts in the CMP: the banners in view are counted a second later, once
 *   each, and a click after it is counted; the server's count is exactly the beacons sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, creativeShown, newPage, recordBeacons, screenshotPath, startDealerSite, type DealerSite, type RunningServer, pauseClock } from './harness';
import { siteAssets, startDemoEmbed } from './page-speed';

const DEALER = 'honda-of-demo';
const SRP = '/new-inventory?new=true&model=civic';
const SLOTS = ['header', 'primary', 'upsell'] as const;
/** Tall enough that every slot of the search page is in view at once. */
const VIEWPORT = { width: 1366, height: 2200 };

let server: RunningServer;
let browser: Browser;
let site: DealerSite;
let manager: string;

beforeAll(async () => {
  let info;
  ({ server, browser, info } = await startDemoEmbed());
  site = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: info.scriptTag, assets: await siteAssets() });
  manager = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
});
afterAll(() => closeAll(browser, site, server));

/** The demo dealer's impressions and clicks as its manager's analytics reports them (the read flushes buffered events). */
async function counts(): Promise<{ impressions: number; clicks: number }> {
  const res = await fetch(`${server.origin}/api/dealers/${DEALER}/analytics?period=24h`, { headers: { cookie: manager } });
  const { current } = (await res.json()) as { current: { impressions: number; clicks: number } };
  return { impressions: current.impressions, clicks: current.clicks };
}

/**
 * The stand-in CMP, run before anything of the page (a CMP's stub comes first in <head>): Consent
 * Mode defaults and TCF data from the stored choice (none: the banner is up, nothing consented),
 * listeners told at once and on each change; `__testCmp.accept()` is the shopper's "Accept all".
 */
function installCmp(): void {
  const w = window as unknown as Record<string, unknown> & { dataLayer: unknown[] };
  w.dataLayer = w.dataLayer || [];
  // eslint-disable-next-line prefer-rest-params -- gtag pushes its arguments object, as Google's snippet does
  const gtag = function (..._args: unknown[]) { w.dataLayer.push(arguments); };
  let accepted = false;
  try {
    accepted = localStorage.getItem('test-cmp') === 'all';
  } catch {
    return; // about:blank has no storage, and no tag
  }
  const all = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [i + 1, true]));
  gtag('consent', 'default', { analytics_storage: accepted ? 'granted' : 'denied', ad_storage: accepted ? 'granted' : 'denied' });
  type Listener = (data: unknown, ok: boolean) => void;
  const listeners: Listener[] = [];
  const tcData = (eventStatus: string) => ({ tcString: 'stub', eventStatus, cmpStatus: 'loaded', gdprApplies: true, purpose: { consents: accepted ? all : {}, legitimateInterests: {} }, vendor: { consents: {}, legitimateInterests: {} } });
  w.__tcfapi = (command: string, version: number, callback: Listener) => {
    if (command === 'addEventListener' && version === 2) {
      listeners.push(callback);
      callback({ ...tcData(accepted ? 'tcloaded' : 'cmpuishown'), listenerId: listeners.length }, true);
    }
  };
  w.__testCmp = {
    accept() {
      accepted = true;
      localStorage.setItem('test-cmp', 'all');
      gtag('consent', 'update', { analytics_storage: 'granted', ad_storage: 'granted' });
      listeners.forEach((l, i) => l({ ...tcData('useractioncomplete'), listenerId: i + 1 }, true));
    },
  };
  // Banner clicks stay on the page (the test reads it after them).
  document.addEventListener('click', (e) => e.preventDefault());
}

/** A desktop page with the CMP, recording its beacons, its timers under the test's clock. */
async function openPage(): Promise<Page> {
  const page = await newPage(browser, { viewport: VIEWPORT });
  await recordBeacons(page);
  await page.addInitScript(installCmp);
  await pauseClock(page, new Date('2025-06-02T10:00:00Z'));
  return page;
}

const sessionKeys = (page: Page) => page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('dcb_')).sort());
const pushes = (page: Page) => page.evaluate(() => (window as unknown as { dataLayer: unknown[] }).dataLayer.filter((e) => !!e && typeof e === 'object' && 'event' in e));

describe('consent', () => {
  it('analytics denied by the CMP: banners show, nothing is sent or stored; accepted: each banner in view counted once, exactly', async () => {
    const before = await counts();
    const page = await openPage();
    await page.goto(site.origin + SRP);
    for (const type of SLOTS) await creativeShown(page, type);
    await page.clock.runFor(5000); // five seconds in view: an impression each, were it allowed
    await page.locator('.dc-banner[data-dc-type="primary"] a').click();
    await page.clock.runFor(1000);
    expect(await beaconsOf(page)).toEqual([]);
    expect(await pushes(page)).toEqual([]);
    expect(await sessionKeys(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('embed-consent-denied') });

    // "Accept all": the banners still in view are counted a second later (checked every 500 ms).
    await page.evaluate(() => (window as unknown as { __testCmp: { accept(): void } }).__testCmp.accept());
    await page.clock.runFor(1600);
    const impressions = (await beaconsOf(page)).filter((b) => b.event === 'impression');
    expect(impressions.map((b) => b.type).sort()).toEqual([...SLOTS]);
    expect(new Set(impressions.map((b) => b.pv)).size).toBe(1); // one page view
    await page.locator('.dc-banner[data-dc-type="primary"] a').click();
    await expect.poll(async () => (await beaconsOf(page)).filter((b) => b.event === 'click').map((b) => b.type)).toEqual(['primary']);
    await page.clock.runFor(5000);
    expect((await beaconsOf(page)).map((b) => b.event)).toEqual(['impression', 'impression', 'impression', 'click']);
    expect(await sessionKeys(page)).toEqual(['dcb_c']); // the last click, for a conversion; the rotation bucket was decided while denied
    // The server counts exactly what was sent: nothing of the denied time.
    await expect.poll(async () => counts()).toEqual({ impressions: before.impressions + 3, clicks: before.clicks + 1 });
    await page.close();
  });

  it('the stored choice on the next page: counted from the start, the rotation bucket kept for the session', async () => {
    const before = await counts();
    const page = await openPage();
    await page.goto(`${site.origin}/`); // the shopper accepted on an earlier visit
    await page.evaluate(() => localStorage.setItem('test-cmp', 'all'));
    await page.goto(site.origin + SRP);
    for (const type of SLOTS) await creativeShown(page, type);
    await page.clock.runFor(1100);
    expect((await beaconsOf(page)).map((b) => b.type).sort()).toEqual([...SLOTS]);
    expect(await sessionKeys(page)).toEqual(['dcb_r']);
    await expect.poll(async () => counts()).toEqual({ impressions: before.impressions + 3, clicks: before.clicks });
    await page.close();
  });
});
