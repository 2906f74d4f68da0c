/**
 * The embed script on a dealer's site (spec 01 §4, §9; DECISIONS 15-16): viewable impressions
 * only after half the banner has been in view for a continuous second, re-rendering on history
 * navigation, hiding without a model, the mobile variant, conversion attribution to the last
 * click, and no layout shift.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { beaconsOf, launchBrowser, newPage, recordBeacons, screenshotPath, startDealerSite, startServer, type DealerSite, type RunningServer, apiSignIn } from './harness';

let server: RunningServer;
let site: DealerSite;
let browser: Browser;
let cookie = '';

async function analytics(): Promise<{ current: { impressions: number; clicks: number; conversions: number }; models: Array<{ model: string; impressions: number; conversions: number }> }> {
  if (!cookie) cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  return (await fetch(`${server.origin}/api/dealers/honda-of-demo/analytics?period=24h`, { headers: { cookie } })).json();
}
const impressions = async () => (await analytics()).current.impressions;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Records the layout shift that happens after the banner slot exists (the moment the script
 * replaces the shortcode text), i.e. what the image loading causes: the slot's reserved
 * aspect ratio must make it zero.
 */
async function trackCls(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __cls: number; __slotAt: number };
    w.__cls = 0;
    w.__slotAt = Infinity;
    new MutationObserver(() => {
      if (w.__slotAt === Infinity && document.querySelector('.dc-banner')) w.__slotAt = performance.now();
    }).observe(document, { childList: true, subtree: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
        if (!e.hadRecentInput && e.startTime > w.__slotAt + 50) w.__cls += e.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

beforeAll(async () => {
  server = await startServer();
  site = await startDealerSite(`${server.origin}/scripts/dc-banners-honda-of-demo.js`, 'long-srp.html');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await server?.stop();
});

describe('embed script on a dealer page', () => {
  let page: Page;

  it('counts a viewable impression only after half the banner was in view for one continuous second', async () => {
    page = await newPage(browser);
    await trackCls(page);
    // Images arrive 600 ms after the slot exists, so a slot without reserved space would shift the page.
    await page.route('**/api/scripts/**/asset*', async (route) => {
      await sleep(600);
      await route.continue();
    });
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await page.locator('.dc-banner[data-dc-type="header"] img').waitFor();
    await expect.poll(impressions, { timeout: 10_000 }).toBe(1); // the header, in view at load
    await sleep(1500);
    expect(await impressions()).toBe(1); // the primary banner is far below the fold
    await page.locator('#below').scrollIntoViewIfNeeded();
    await sleep(400);
    await page.evaluate(() => window.scrollTo(0, 0)); // out of view before a full second
    await sleep(1500);
    expect(await impressions()).toBe(1);
    await page.locator('#below').scrollIntoViewIfNeeded();
    await expect.poll(impressions, { timeout: 10_000 }).toBe(2);
    await sleep(1500);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('#below').scrollIntoViewIfNeeded();
    await sleep(1500);
    expect(await impressions()).toBe(2); // once per banner per page view
  });

  it('reserves the banner space before the image loads: no layout shift once the slot exists', async () => {
    const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
    expect(cls).toBe(0);
    const box = await page.locator('.dc-banner[data-dc-type="header"]').boundingBox();
    expect(Math.round((box!.width / box!.height) * 100) / 100).toBeCloseTo(1920 / 300, 1);
  });

  it('re-renders on history navigation to another model, and hides without a model', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.click('#to-accord');
    const img = page.locator('.dc-banner[data-dc-type="header"] img');
    await expect.poll(() => img.getAttribute('src'), { timeout: 3000 }).toContain('model=accord');
    expect(await page.locator('.dc-banner[data-dc-type="header"] a').getAttribute('href')).toBe(
      `${site.origin}/new-inventory?new=true&model=accord&fq=1&min-year=2003&max-year=2026`,
    );
    await expect.poll(async () => (await analytics()).models.find((m) => m.model === 'accord')?.impressions ?? 0, { timeout: 10_000 }).toBe(1);
    await page.click('#to-none');
    await expect.poll(() => page.locator('.dc-banner[data-dc-type="header"]').isVisible(), { timeout: 3000 }).toBe(false);
    await page.close();
  });

  it('asks for the mobile variant at 375 px wide', async () => {
    const mobile = await newPage(browser, { viewport: { width: 375, height: 740 }, isMobile: true });
    await mobile.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    const img = mobile.locator('.dc-banner[data-dc-type="header"] img');
    await img.waitFor();
    expect(await img.getAttribute('src')).toContain('variant=mobile');
    const box = await mobile.locator('.dc-banner[data-dc-type="header"]').boundingBox();
    expect(box!.width / box!.height).toBeCloseTo(600 / 500, 1);
    await mobile.screenshot({ path: screenshotPath('05-dealer-page-mobile') });
    await mobile.close();
  });

  it('sends the impression with a click made before the 1-second view, and the server counts one click per banner per page view', async () => {
    const before = (await analytics()).current;
    const p = await newPage(browser);
    await recordBeacons(p);
    let beacons: Array<{ event: string; pv: string }> = [];
    const read = async () => (beacons = (await beaconsOf(p)) as Array<{ event: string; pv: string }>);
    await p.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await p.locator('.dc-banner[data-dc-type="header"] img').waitFor();
    await p.evaluate(() => document.addEventListener('click', (e) => e.preventDefault())); // stay on the page
    for (let i = 0; i < 3; i++) await p.locator('.dc-banner[data-dc-type="header"] a').click();
    await expect.poll(async () => (await read()).length, { timeout: 5000 }).toBe(4);
    expect(beacons.map((b) => b.event)).toEqual(['impression', 'click', 'click', 'click']);
    expect(new Set(beacons.map((b) => b.pv)).size).toBe(1);
    expect(beacons[0]!.pv).toMatch(/^[0-9a-f]{16}$/);
    await expect.poll(async () => (await analytics()).current, { timeout: 10_000 }).toMatchObject({ impressions: before.impressions + 1, clicks: before.clicks + 1 });
    await p.close();
  });

  it('attributes a conversion to the last banner click of the session', async () => {
    const p = await newPage(browser);
    await p.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await p.locator('.dc-banner[data-dc-type="header"] img').waitFor();
    await p.locator('.dc-banner[data-dc-type="header"] a').click();
    await p.waitForURL(/fq=1/);
    await p.waitForFunction(() => Boolean((window as unknown as { dcBanners?: unknown }).dcBanners));
    await p.evaluate(() => (window as unknown as { dcBanners: { conversion(o?: { model?: string }): void } }).dcBanners.conversion());
    await expect.poll(async () => (await analytics()).models.find((m) => m.model === 'civic')?.conversions ?? 0, { timeout: 10_000 }).toBe(1);
    expect(await p.evaluate(() => Object.keys(window).filter((k) => k.toLowerCase().includes('dcbanner')))).toEqual(['dcBanners']);
    await p.close();
  });
});
