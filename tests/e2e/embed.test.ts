/**
 * The embed script on a dealer's site (spec 01 §4, §9; DECISIONS 15-16): viewable impressions
 * only after half the banner has been in view for a continuous second, re-rendering on history
 * navigation, hiding without a model, the mobile variant, conversion attribution to the last
 * click, and no layout shift.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { beaconsOf, closeAll, launchBrowser, newPage, recordBeacons, screenshotPath, startDealerSite, startServer, type DealerSite, type RunningServer, apiSignIn, pauseClock } from './harness';

let server: RunningServer;
let site: DealerSite;
let browser: Browser;
let cookie = '';

async function analytics(): Promise<{ current: { impressions: number; clicks: number; conversions: number }; models: Array<{ model: string; impressions: number; conversions: number }> }> {
  if (!cookie) cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  return (await fetch(`${server.origin}/api/dealers/honda-of-demo/analytics?period=24h`, { headers: { cookie } })).json();
}
const modelCounts = async (model: string) => (await analytics()).models.find((m) => m.model === model) ?? { impressions: 0, conversions: 0 };
/** Server-side counts land through the ingest buffer: a generous limit for a busy machine. */
const SERVER_COUNT_WAIT = { timeout: 30_000, interval: 250 };

/**
 * The embed script's 1-second viewability timer (setTimeout) and its URL watch (setInterval) fire
 * only when the test runs the clock (`page.clock.runFor`), however slow the machine is. Rendering,
 * image loads and IntersectionObserver keep real time.
 */
const pausedClock = (page: Page) => pauseClock(page, new Date('2026-01-05T10:00:00Z'));

/**
 * Watches whether at least half of each banner slot is in the viewport with an IntersectionObserver
 * like the embed script's (same thresholds): both observers are notified in the same rendering
 * update, so once `inView` answers, the embed script has seen the same state.
 */
async function watchSlots(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __inView: Record<string, boolean> };
    w.__inView = {};
    const io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) w.__inView[(e.target as HTMLElement).dataset.dcType!] = e.isIntersecting && e.intersectionRatio >= 0.5;
      },
      { threshold: [0, 0.5, 1] },
    );
    document.querySelectorAll('.dc-banner[data-dc-type]').forEach((el) => io.observe(el));
  });
}
/** Waits until the slot of `type` is (or is not) at least half in view, as the embed script sees it. */
const inView = (page: Page, type: string, expected: boolean) =>
  page.waitForFunction(
    ([t, e]) => (window as unknown as { __inView?: Record<string, boolean> }).__inView?.[t as string] === e,
    [type, expected] as const,
  );
/**
 * Waits until the embed script has drawn the creative of the slot of `type` (its load handler
 * colours the slot; only then does it count), optionally for `model`.
 */
const drawn = (page: Page, type: string, model = '') =>
  page.waitForFunction(
    ([t, m]) => {
      const el = document.querySelector<HTMLElement>(`.dc-banner[data-dc-type="${t}"]`);
      const img = el?.querySelector('img');
      return !!el && !!img && el.style.background !== '' && img.src.includes(`model=${m}`);
    },
    [type, model] as const,
  );
const beaconList = async (page: Page) => (await beaconsOf(page)).map((b) => `${b.event}:${b.type}:${b.model}`);

/**
 * Records the layout shift that happens after the banner slots exist and have been drawn once,
 * i.e. what the image loading causes: the slots' reserved aspect ratio must make it zero. The
 * frame that first draws a slot moves what follows the shortcode (this page has no inline snippet):
 * counting starts after that frame, whenever a busy machine gets to it, and starts over if
 * another slot appears.
 */
async function trackCls(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __cls: number; __slotAt: number };
    w.__cls = 0;
    w.__slotAt = Infinity;
    let slots = 0;
    new MutationObserver(() => {
      const now = document.querySelectorAll('.dc-banner').length;
      if (now === slots) return;
      slots = now;
      w.__slotAt = Infinity;
      requestAnimationFrame(() => setTimeout(() => slots === now && (w.__slotAt = performance.now())));
    }).observe(document, { childList: true, subtree: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
        if (!e.hadRecentInput && e.startTime > w.__slotAt) w.__cls += e.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

beforeAll(async () => {
  server = await startServer();
  const scriptUrl = `${server.origin}/scripts/dc-banners-honda-of-demo.js`;
  site = await startDealerSite(scriptUrl, 'long-srp.html', { scriptTag: `<script src="${scriptUrl}" async></script>`, vars: { MODEL_BUTTONS: 'yes' } });
  browser = await launchBrowser();
});
afterAll(() => closeAll(browser, site, server));

describe('embed script on a dealer page', () => {
  it('counts a viewable impression only after half the banner was in view for one continuous second', async () => {
    const page = await newPage(browser);
    await pausedClock(page);
    await recordBeacons(page);
    const before = (await analytics()).current.impressions;
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await drawn(page, 'header');
    await drawn(page, 'primary');
    await watchSlots(page);
    await inView(page, 'header', true);
    await inView(page, 'primary', false); // far below the fold

    await page.clock.runFor(999);
    expect(await beaconList(page)).toEqual([]);
    await page.clock.runFor(1);
    expect(await beaconList(page)).toEqual(['impression:header:Civic']); // the header, in view at load
    await page.clock.runFor(5000);
    expect(await beaconList(page)).toHaveLength(1); // the primary banner never was in view

    await page.locator('#below').scrollIntoViewIfNeeded();
    await inView(page, 'primary', true);
    await page.clock.runFor(999);
    await page.evaluate(() => window.scrollTo(0, 0)); // out of view before a full second
    await inView(page, 'primary', false);
    await page.clock.runFor(5000);
    expect(await beaconList(page)).toEqual(['impression:header:Civic']);

    await page.locator('#below').scrollIntoViewIfNeeded();
    await inView(page, 'primary', true);
    await page.clock.runFor(999);
    expect(await beaconList(page)).toHaveLength(1); // the second view starts its own full second
    await page.clock.runFor(1);
    expect(await beaconList(page)).toEqual(['impression:header:Civic', 'impression:primary:Civic']);

    await page.evaluate(() => window.scrollTo(0, 0));
    await inView(page, 'primary', false);
    await page.locator('#below').scrollIntoViewIfNeeded();
    await inView(page, 'primary', true);
    await page.clock.runFor(5000);
    expect(await beaconList(page)).toHaveLength(2); // once per banner per page view
    await expect.poll(async () => (await analytics()).current.impressions, SERVER_COUNT_WAIT).toBe(before + 2);
    await page.close();
  });

  it('reserves the banner space before the image loads: no layout shift once the slot exists', async () => {
    const page = await newPage(browser);
    await trackCls(page);
    // Global Privacy Control: banners show, nothing is sent (this test counts nothing).
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
    // Images arrive 600 ms after the slot exists, so a slot without reserved space would shift the page.
    await page.route('**/api/scripts/**/asset*', async (route) => {
      await delay(600);
      await route.continue();
    });
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await drawn(page, 'header');
    await drawn(page, 'primary');
    // Layout-shift entries reach the observer after the frame that painted the images.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
    const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
    expect(cls).toBe(0);
    const box = await page.locator('.dc-banner[data-dc-type="header"]').boundingBox();
    expect(Math.round((box!.width / box!.height) * 100) / 100).toBeCloseTo(1920 / 300, 1);
    await page.close();
  });

  it('re-renders on history navigation to another model, and hides without a model', async () => {
    const page = await newPage(browser);
    await pausedClock(page);
    await recordBeacons(page);
    const accordBefore = (await modelCounts('accord')).impressions;
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await drawn(page, 'header', 'civic');
    await page.click('#to-accord');
    await page.clock.runFor(1); // the script looks at the URL right after pushState (a 0 ms timer)
    await drawn(page, 'header', 'accord');
    expect(await page.locator('.dc-banner[data-dc-type="header"] a').getAttribute('href')).toBe(
      `${site.origin}/new-inventory?new=true&model=accord&fq=1&min-year=2003&max-year=2026`,
    );
    await watchSlots(page);
    await inView(page, 'header', true);
    await page.clock.runFor(1000);
    expect(await beaconList(page)).toEqual(['impression:header:Accord']); // the civic view never lasted a second
    await expect.poll(async () => (await modelCounts('accord')).impressions, SERVER_COUNT_WAIT).toBe(accordBefore + 1);
    await page.click('#to-none');
    await page.clock.runFor(1);
    await page.locator('.dc-banner[data-dc-type="header"]').waitFor({ state: 'hidden' });
    await page.close();
  });

  it('asks for the mobile variant at 375 px wide', async () => {
    const mobile = await newPage(browser, { viewport: { width: 375, height: 740 }, isMobile: true });
    await pausedClock(mobile); // counts nothing
    await mobile.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await drawn(mobile, 'header');
    expect(await mobile.locator('.dc-banner[data-dc-type="header"] img').getAttribute('src')).toContain('variant=mobile');
    const box = await mobile.locator('.dc-banner[data-dc-type="header"]').boundingBox();
    expect(box!.width / box!.height).toBeCloseTo(600 / 500, 1);
    await mobile.screenshot({ path: screenshotPath('05-dealer-page-mobile') });
    await mobile.close();
  });

  it('sends the impression with a click made before the 1-second view, and the server counts one impression and one click per banner per page view', async () => {
    const before = (await analytics()).current;
    const p = await newPage(browser);
    await pausedClock(p); // the clicks come before the 1-second view, however slow the machine
    await recordBeacons(p);
    await p.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await drawn(p, 'header');
    await p.evaluate(() => document.addEventListener('click', (e) => e.preventDefault())); // stay on the page
    for (let i = 0; i < 3; i++) await p.locator('.dc-banner[data-dc-type="header"] a').click();
    await p.clock.runFor(5000); // the view completes now: no second impression
    const beacons = (await beaconsOf(p)) as Array<{ event: string; pv: string; imp?: number }>;
    // Each click carries the impression the server has not answered (none was sent on its own).
    expect(beacons.map((b) => [b.event, b.imp])).toEqual([['click', 1], ['click', 1], ['click', 1]]);
    expect(new Set(beacons.map((b) => b.pv)).size).toBe(1);
    expect(beacons[0]!.pv).toMatch(/^[0-9a-f]{16}$/);
    await expect.poll(async () => (await analytics()).current, SERVER_COUNT_WAIT).toMatchObject({ impressions: before.impressions + 1, clicks: before.clicks + 1 });
    await p.close();
  });

  it('attributes a conversion to the last banner click of the session', async () => {
    const conversionsBefore = (await modelCounts('civic')).conversions;
    const p = await newPage(browser);
    await pausedClock(p); // no impression but the click's
    await p.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await drawn(p, 'header');
    await p.locator('.dc-banner[data-dc-type="header"] a').click();
    await p.waitForURL(/fq=1/);
    await p.waitForFunction(() => Boolean((window as unknown as { dcBanners?: unknown }).dcBanners));
    await p.evaluate(() => (window as unknown as { dcBanners: { conversion(o?: { model?: string }): void } }).dcBanners.conversion());
    await expect.poll(async () => (await modelCounts('civic')).conversions, SERVER_COUNT_WAIT).toBe(conversionsBefore + 1);
    expect(await p.evaluate(() => Object.keys(window).filter((k) => k.toLowerCase().includes('dcbanner')))).toEqual(['dcBanners']);
    await p.close();
  });
});
