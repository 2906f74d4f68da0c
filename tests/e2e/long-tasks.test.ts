/**
 * No main-thread stretch above 50 ms at 4x CPU on a 6,000-node page: the mxs search page
 * with ~750 more vehicle cards (over 6,000 elements, the shortcodes near the top and the end),
 * loaded on the mobile profile (Slow 4G, so the parser takes the page in many chunks, and 4x CPU)
 * with the tag we hand out and without it. Our code's stretches (script evaluations and callbacks,
 * the snippet's included) are read from a Chromium trace in thread CPU time, which a busy machine
 * does not inflate; a long task counts as ours when it would not be long without our time in it.
 * The PerformanceObserver's long tasks and wall-clock stretches are reported beside them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { closeAll, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { measureLoad, MOBILE, siteAssets, startDemoEmbed, type LoadMetrics } from './page-speed';

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
  it('our code never runs 50 ms at a stretch, and makes no long task of its own', async () => {
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
    // Thread CPU time: what our code costs at 4x CPU, however busy the machine is (wall-clock
    // stretches, reported above, also count the time other processes took).
    expect(cpu.longestOurs).toBeGreaterThan(0);
    expect(cpu.longestOurs).toBeLessThan(50);
    expect(cpu.longTasks.filter((t) => t.duration - t.ours <= 50)).toEqual([]); // none would be short without us
  });
});
