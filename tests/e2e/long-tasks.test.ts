/**
 * The main thread on a 6,000-node page at 4x CPU: the mxs search page with ~750 more vehicle
 * cards (over 6,000 elements, the shortcodes near the top and the end), loaded on the mobile
 * profile (Slow 4G, so the parser takes the page in many chunks, and 4x CPU) with the tag we hand
 * out and without it: every banner, the late one included, is shown and linked. Our code's
 * stretches (script evaluations and callbacks, the snippet's included) are read from a Chromium
 * trace in thread CPU time and reported with the long tasks they fall in, beside the
 * PerformanceObserver's long tasks; their length is a performance figure (`npm run bench`,
 * docs/PERFORMANCE.md), which a busy machine inflates, so it is reported here, not asserted.
 *
 * The same on a slow WordPress page (dealer-inspire-srp.html with THIRD_PARTY: a hero carousel
 * and ~2 MB of third-party scripts from a vendor origin, tests/e2e/third-party.ts), whose own long
 * tasks are many: the tag still paints no raw shortcode, shifts nothing, shows every banner and
 * counts each exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, creativeShown, fetchScriptInfo, recordBeacons, screenshotPath, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { createDealer, measureLoad, MOBILE, siteAssets, startDemoEmbed, type LoadMetrics } from './page-speed';
import { startThirdPartyVendor, thirdPartyVars } from './third-party';

let server: RunningServer;
let browser: Browser;
let info: ScriptInfo;
const sites: DealerSite[] = [];

/** `count` more vehicle cards in the results grid, seven elements each, their photos lazy. */
function moreListings(count: number): string {
  const trims = ['LX', 'Sport', 'EX', 'Si', 'Touring', 'Hybrid'];
  return Array.from({ length: count }, (_, i) => {
    const trim = trims[i % trims.length];
    return `<article class="card"><img src="/assets/vehicles/${(i % 12) + 1}.jpg" width="480" height="360" alt="2025 Honda Civic ${trim}" loading="lazy"><div class="info"><h3>2025 Honda Civic ${trim}</h3><p class="vin">VIN 2HGFE2F59SH${String(10000 + i)} · Stock H${3000 + i}</p><p class="price">$${(24_650 + (i % 40) * 250).toLocaleString('en-US')}</p><a class="cta" href="#vehicle-${i + 20}">Check availability</a></div></article>`;
  }).join('\n');
}

beforeAll(async () => {
  ({ server, browser, info } = await startDemoEmbed([], { ownBrowser: true }));
});
afterAll(() => closeAll(browser, sites, server));

describe('main thread on a 6,000-node page at 4x CPU', () => {
  it('shows and links every banner, the late one included, and reports our stretches in the trace', async () => {
    // The last card of the grid holds a shortcode too: the parser reaches it at the very end.
    const vars = { MORE_LISTINGS: `${moreListings(860)}\n<div class="card promo">[dc-banner type="upsell"]</div>` };
    const assets = await siteAssets();
    const withTag = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: info.scriptTag, assets, vars });
    const without = await startDealerSite(info.scriptUrl, 'mxs-srp.html', { scriptTag: '', assets, vars });
    sites.push(withTag, without);
    const path = '/new-inventory?new=true&model=civic';
    const theirs = await measureLoad(browser, without.origin + path, MOBILE, { scriptUrl: info.scriptUrl, longTasks: true, banners: false });
    const load = await measureLoad(browser, withTag.origin + path, MOBILE, { scriptUrl: info.scriptUrl, longTasks: true });
    const cpu = load.cpu!;
    const tasks = (l: LoadMetrics) => `${l.longTasks.length} (longest ${Math.round(Math.max(0, ...l.longTasks.map((t) => t.duration)))} ms)`;
    process.stdout.write(
      `long tasks at 4x CPU, ${load.elements} elements: PerformanceObserver: with the tag ${tasks(load)}, without ${tasks(theirs)}; our longest stretch ${load.longestOurs.toFixed(1)} ms (wall clock); ` +
        `trace, thread CPU time: our longest stretch ${cpu.longestOurs.toFixed(1)} ms, tasks over 50 ms ${JSON.stringify(cpu.longTasks.map((t) => [Math.round(t.duration), Math.round(t.ours)]))}; ` +
        `ours of 5 ms or more (wall clock): ${JSON.stringify(load.oursOver5)}\n`,
    );
    expect(load.elements).toBeGreaterThan(6000);
    expect(load.slots.filter((s) => s.shown && s.linked).length).toBe(4); // the late shortcode was taken too
    // Our code ran and its stretches were found in the trace. How long they are is a performance
    // figure, reported above and by `npm run bench` (docs/PERFORMANCE.md), not asserted here: a
    // busy machine lengthens them even in thread CPU time (CI saw 70 ms where a quiet run takes 40).
    expect(cpu.longestOurs).toBeGreaterThan(0);
  });
});

describe('main thread on a WordPress page with a hero carousel and 2 MB of third-party scripts, 4x CPU', () => {
  it('no raw shortcode, CLS 0, every banner shown and counted once among the page\'s own long tasks', async () => {
    const dealer = await createDealer(server.origin, { name: 'Toyota Inspire', manufacturer: 'toyota', provider: 'dealer-inspire', model: 'Camry' });
    const toyota = await fetchScriptInfo(server.origin, dealer.id);
    const vendor = await startThirdPartyVendor();
    sites.push(vendor);
    const site = await startDealerSite(toyota.scriptUrl, 'dealer-inspire-srp.html', { scriptTag: toyota.scriptTag, assets: await siteAssets(), vars: thirdPartyVars(vendor) });
    sites.push(site);
    const admin = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
    const counted = async () => {
      const res = await fetch(`${server.origin}/api/dealers/${dealer.id}/analytics?period=24h`, { headers: { cookie: admin } });
      return ((await res.json()) as { current: { impressions: number } }).current.impressions;
    };
    const vendorScripts: string[] = [];
    let beacons: Array<{ event: string; type: string }> = [];
    let serverCount = 0;
    let carouselSteps = 0;
    const pageErrors: string[] = [];
    const load = await measureLoad(browser, `${site.origin}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry&_dFR%5Btype%5D%5B0%5D=New`, MOBILE, {
      scriptUrl: toyota.scriptUrl,
      longTasks: true,
      sampleRaw: true,
      screenshot: screenshotPath('73-long-tasks-third-party-mobile'),
      setup: async (page) => {
        await recordBeacons(page);
        page.on('pageerror', (e) => void pageErrors.push(e.message));
        page.on('requestfinished', (r) => void (r.url().startsWith(vendor.origin) && vendorScripts.push(new URL(r.url()).pathname)));
      },
      after: async (page) => {
        // Each slot in view in turn until its impression is sent; then the server's count.
        for (const type of ['header', 'primary', 'upsell']) {
          await page.locator(`.dc-banner[data-dc-type="${type}"]`).scrollIntoViewIfNeeded({ timeout: 30_000 });
          await creativeShown(page, type);
          await expect.poll(async () => (await beaconsOf(page)).filter((b) => b.event === 'impression' && b.type === type).length, { timeout: 30_000 }).toBeGreaterThan(0);
        }
        await expect.poll(counted, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
        // The carousel ran meanwhile (it advances every 2.5 s by transform).
        carouselSteps = await page.evaluate(() => Number(document.querySelector<HTMLElement>('.hero-carousel')?.dataset.steps ?? 0));
        await page.evaluate(() => window.scrollTo(0, 0));
        beacons = await beaconsOf(page);
        serverCount = await counted();
      },
    });
    const cpu = load.cpu!;
    process.stdout.write(
      `third-party page at 4x CPU: vendor scripts ${JSON.stringify(vendorScripts)}; trace, thread CPU time: our longest stretch ${cpu.longestOurs.toFixed(1)} ms, ` +
        `tasks over 50 ms [duration, ours] ${JSON.stringify(cpu.longTasks.map((t) => [Math.round(t.duration), Math.round(t.ours)]))}; ` +
        `PerformanceObserver long tasks ${load.longTasks.length} (longest ${Math.round(Math.max(0, ...load.longTasks.map((t) => t.duration)))} ms); CLS ${load.cls.toFixed(4)}, raw frames ${load.rawFrames.length} of ${load.frames}, FCP ${Math.round(load.fcp)} ms, LCP ${Math.round(load.lcp)} ms (${load.lcpElement})\n`,
    );
    // The page is as heavy as meant: its three vendor scripts loaded, and they make long tasks of their own.
    expect(pageErrors).toEqual([]); // neither ours nor the vendors'
    expect(vendorScripts.sort()).toEqual(['/chat/widget.js', '/consent/cmp.js', '/slider/hero-slider.min.js']);
    expect(load.longTasks.length).toBeGreaterThan(0);
    expect(cpu.longTasks.length).toBeGreaterThan(0);
    expect(carouselSteps).toBeGreaterThan(1); // shown the first slide, then advanced on its own
    // Ours ran (their length is a bench figure, as above).
    expect(cpu.longestOurs).toBeGreaterThan(0);
    // What the shopper sees: no raw shortcode, nothing shifted, three linked banners.
    expect(load.frames).toBeGreaterThan(0);
    expect(load.rawFrames).toEqual([]);
    // Not asserted: that the first slot exists before first paint. On Slow 4G the parser may paint
    // the page's top before its chunk with the header shortcode arrives (CI: FCP 3,540 ms, slot
    // 3,703 ms, no raw frame, no shift); what the shopper sees is the two assertions above.
    expect(load.cls).toBeLessThan(0.005);
    expect(load.slots.map((s) => s.type).sort()).toEqual(['header', 'primary', 'upsell']);
    for (const slot of load.slots) expect(slot, JSON.stringify(slot)).toMatchObject({ shown: true, linked: true, src: expect.stringContaining('variant=mobile') });
    // Counted exactly once per slot: one impression beacon each, and the server counted three.
    expect(beacons.filter((b) => b.event === 'impression').map((b) => b.type).sort()).toEqual(['header', 'primary', 'upsell']);
    expect(serverCount).toBe(3);
  });
});
