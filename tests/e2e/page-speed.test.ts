/**
 * A tag that costs the page nothing, in Chromium on a realistic search page per provider
 * (mxs, dealer-inspire, custom: sticky header, web font, results grid with photos, the three
 * shortcodes as each site writes them), with the tag the Script page hands out (inline snippet +
 * async script) against the same page without it, on the desktop profile (40 ms round trip, 100 ms
 * extra on our script) and the mobile one (390x844, Slow 4G, 4x CPU, 300 ms extra):
 * - CLS 0.00 with and without the tag (layout-shift entries without recent input, whole load);
 * - the slots exist before a frame could show them (before the first contentful paint, or in the
 *   frame their shortcode arrived in when the page painted before the parser reached it: the
 *   snippet ran during parsing), our script is fetched non-blocking (so it cannot hold the first
 *   paint), and no frame ever shows a raw shortcode;
 * - on the mxs page the header creative, now the LCP element, is requested by the snippet while the
 *   page parses, before our script has arrived;
 * - a strict Content-Security-Policy (no 'unsafe-inline', the snippet allowed by its hash) blocks
 *   nothing of ours;
 * - when our script is blocked, or our server is down, the slots in view stay reserved and those
 *   out of view collapse (the snippet gives them up): CLS 0, no raw text.
 * Structure is asserted exactly, on one paired load (with the tag, then the same page without it)
 * per page and profile. The timings (FCP and LCP with and without the tag, their medians over many
 * paired loads) are figures of `npm run bench` (docs/PERFORMANCE.md), not assertions here: on a
 * shared machine a single load's timing is noise; the log shows this run's figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { fetchScriptInfo, launchBrowser, screenshotPath, startDealerSite, startServer, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { comparePageSpeed, createDealer, DESKTOP, measureLoad, MOBILE, siteAssets, uploadCreatives, type PageSpeed, type Profile } from './page-speed';

let server: RunningServer;
let browser: Browser;
const sites: DealerSite[] = [];

interface Case {
  provider: 'mxs' | 'dealer-inspire' | 'custom';
  page: string;
  path: string;
  info: ScriptInfo;
  withTag: DealerSite;
  without: DealerSite;
}
const cases = new Map<string, Case>();

const PAGES = [
  { provider: 'mxs', page: 'mxs-srp.html', path: '/new-inventory?new=true&model=civic' },
  { provider: 'dealer-inspire', page: 'dealer-inspire-srp.html', path: '/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry&_dFR%5Btype%5D%5B0%5D=New' },
  { provider: 'custom', page: 'custom-srp.html', path: '/inventory?model=Escape&type=new' },
] as const;

/** Paired loads per page and profile: every load must show the structure, so one pair proves it (the bench takes medians). */
const PAIRED_LOADS = 1;

/** True when the handed-out snippet names the image endpoint, so it requests the header creative while the page parses. */
const snippetStartsHeader = (info: ScriptInfo) => /"apiOrigin":/.test(info.scriptTag.split('</script>')[0]!);

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser([], { own: true });
  await uploadCreatives(server.origin, 'honda-of-demo', 'honda', 'civic', 'accord');
  const dealers = {
    mxs: 'honda-of-demo',
    'dealer-inspire': (await createDealer(server.origin, { name: 'Toyota Inspire', manufacturer: 'toyota', provider: 'dealer-inspire', model: 'Camry' })).id,
    custom: (await createDealer(server.origin, { name: 'Ford Custom Motors', manufacturer: 'ford', provider: 'custom', model: 'Escape' })).id,
  };
  const assets = await siteAssets();
  for (const p of PAGES) {
    const info = await fetchScriptInfo(server.origin, dealers[p.provider]);
    const withTag = await startDealerSite(info.scriptUrl, p.page, { scriptTag: info.scriptTag, assets });
    const without = await startDealerSite(info.scriptUrl, p.page, { scriptTag: '', assets });
    sites.push(withTag, without);
    cases.set(p.provider, { ...p, info, withTag, without });
  }
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(sites.map((s) => s.close()));
  await server?.stop();
});

/** One line per figure, so a run's log reads like the bench. */
function report(c: Case, r: PageSpeed) {
  const f = (n: number) => `${Math.round(n)} ms`;
  process.stdout.write(
    `page speed ${c.provider} ${r.profile} (${r.loads} paired loads): CLS ${r.clsWith.toFixed(4)} (without tag ${r.clsWithout.toFixed(4)}), ` +
      `FCP ${f(r.fcpWith)} vs ${f(r.fcpWithout)} (median delta ${f(r.fcpDelta)}), LCP ${f(r.lcpWith)} vs ${f(r.lcpWithout)} (median delta ${f(r.lcpDelta)}), ` +
      `FCP before our script arrived in ${r.fcpBeforeScript}/${r.loads}\n`,
  );
}

/** When each load with the tag painted first and made its first slot, for a failure's message. */
const slotTimes = (r: PageSpeed) => JSON.stringify(r.runs.map(({ with: w }) => ({ fcp: w.fcp, firstSlotAt: w.firstSlotAt, shortcodeFrame: w.shortcodeFrame, slotFrame: w.slotFrame })));

/** What every load with the tag shows: the three slots, each with its creative, linked, at the profile's variant. */
function expectBanners(r: PageSpeed, profile: Profile) {
  for (const { with: load } of r.runs) {
    expect(load.slots.map((s) => s.type).sort()).toEqual(['header', 'primary', 'upsell']);
    for (const slot of load.slots) {
      expect(slot, JSON.stringify(slot)).toMatchObject({ shown: true, linked: true });
      expect(slot.src).toContain(`variant=${profile.name}`);
    }
  }
}

describe.each(PAGES)('$provider search page with the tag we hand out', ({ provider }) => {
  it('desktop: CLS 0.00, slots made before the first paint, no raw shortcode in any frame, our script non-blocking', async () => {
    const c = cases.get(provider)!;
    const r = await comparePageSpeed(browser, c.withTag.origin + c.path, c.without.origin + c.path, c.info.scriptUrl, DESKTOP, PAIRED_LOADS, { screenshot: screenshotPath(`70-page-speed-${provider}-desktop`) });
    report(c, r);
    expect(r.clsWithout).toBeLessThan(0.005); // the fixture itself is stable
    expect(r.clsWith).toBeLessThan(0.005);
    expect(r.slotsBeforePaint, slotTimes(r)).toBe(true);
    expect(r.rawFrames).toBe(0);
    expectBanners(r, DESKTOP);
    // The tag cannot hold the first paint: our script is fetched non-blocking (a blocking one would
    // cost its 140 ms), and the snippet made the slots before the paint (bench: FCP within a frame
    // of the page without the tag on an idle machine).
    expect(r.scriptNonBlocking).toBe(true);
  });

  it('mobile 390x844, Slow 4G, 4x CPU: CLS 0.00, slots before the first paint, no raw shortcode, our script non-blocking', async () => {
    const c = cases.get(provider)!;
    // On the mxs page our script is held until the header creative has been requested: that the
    // snippet requests it while the page parses is asserted below, and a busy machine parsing the
    // throttled page slowly must not let our script win the race (without the snippet's request
    // the header would wait for our script, and the hold would end after its limit, too late).
    const hold = provider === 'mxs' ? { holdScriptUntil: 'type=header' } : {};
    const r = await comparePageSpeed(browser, c.withTag.origin + c.path, c.without.origin + c.path, c.info.scriptUrl, MOBILE, PAIRED_LOADS, { screenshot: screenshotPath(`71-page-speed-${provider}-mobile`), ...hold });
    report(c, r);
    expect(r.clsWithout).toBeLessThan(0.005);
    expect(r.clsWith).toBeLessThan(0.005);
    expect(r.slotsBeforePaint, slotTimes(r)).toBe(true);
    expect(r.rawFrames).toBe(0);
    expectBanners(r, MOBILE);
    expect(r.scriptNonBlocking).toBe(true); // a blocking tag would cost its 300 ms plus a 562 ms round trip

    if (provider === 'mxs') {
      // The page's LCP is a vehicle photo requested while it parses; the snippet requests the
      // header creative (now the LCP element) at the same moment, not after our script arrives
      // (which cost the LCP +1,000 ms; bench: +28 ms on an idle machine, target < 150 ms).
      expect(snippetStartsHeader(c.info), 'the snippet configuration names the image endpoint (apiOrigin, dealerId, version)').toBe(true);
      const times = JSON.stringify(r.runs.map(({ with: w }) => ({ header: w.headerRequestedAt, script: w.scriptLoadedAt })));
      expect(r.headerBeforeScript, `header creative requested before our script arrived: ${times}`).toBe(r.loads);
    }
  });
});

describe('strict Content-Security-Policy', () => {
  it("allows the snippet by its hash and our origin, with no 'unsafe-inline': nothing of ours is blocked", async () => {
    const c = cases.get('mxs')!;
    const origin = server.origin;
    const csp = [
      "default-src 'self'",
      `script-src 'self' ${origin} ${c.info.snippetHash}`,
      "style-src 'self'",
      `img-src 'self' ${origin}`,
      "font-src 'self'",
      `connect-src 'self' ${origin}`,
    ].join('; ');
    const site = await startDealerSite(c.info.scriptUrl, c.page, { scriptTag: c.info.scriptTag, assets: await siteAssets(), headers: { 'Content-Security-Policy': csp } });
    sites.push(site);
    const violations: string[] = [];
    let impression = 0;
    const load = await measureLoad(browser, site.origin + c.path, DESKTOP, {
      scriptUrl: c.info.scriptUrl,
      sampleRaw: true,
      setup: async (page) => void page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && violations.push(m.text()))),
      // The header's impression, a second after its creative loaded, goes out under connect-src.
      after: async (page) => void (impression = (await page.waitForResponse((r) => r.url().endsWith('/api/analytics/track'))).status()),
    });
    expect(violations).toEqual([]);
    expect(load.slots.filter((s) => s.shown && s.linked && s.src).length).toBe(3);
    expect(load.cls).toBeLessThan(0.005);
    expect(load.rawFrames).toEqual([]);
    expect(load.slotBeforePaint).toBe(true);
    expect(impression).toBe(204);
  });
});

describe('when our script or our server fails', () => {
  it('blocked script (ad blocker): the slots in view stay reserved, those below the fold collapse, nothing shifts, no raw shortcode is painted', async () => {
    const c = cases.get('mxs')!;
    for (const profile of [DESKTOP, MOBILE]) {
      const load = await measureLoad(browser, c.withTag.origin + c.path, profile, { scriptUrl: c.info.scriptUrl, failScript: true, sampleRaw: true });
      expect(load.cls).toBeLessThan(0.005);
      expect(load.rawFrames).toEqual([]);
      expect(load.slots.map((s) => s.type).sort()).toEqual(['header', 'primary', 'upsell']);
      for (const slot of load.slots) {
        // In view: reserved at the dealer's size (nothing the shopper sees moves); out of view: collapsed.
        expect({ type: slot.type, shown: slot.shown, reserved: slot.height > 100 }).toEqual({ type: slot.type, shown: slot.inView, reserved: slot.inView });
        expect(slot.linked).toBe(false); // no counted link without the script
      }
      // The header shows the creative the snippet requested; the inline slots stay empty.
      expect(load.slots.find((s) => s.type === 'header')).toMatchObject({ shown: true, src: expect.stringContaining('type=header') });
      expect(load.slots.filter((s) => s.type !== 'header').every((s) => s.src === '')).toBe(true);
    }
  });

  it('server down (every request to our origin fails): the empty slots in view stay reserved, those below the fold collapse, nothing shifts, no raw shortcode', async () => {
    const c = cases.get('mxs')!;
    const load = await measureLoad(browser, c.withTag.origin + c.path, MOBILE, { scriptUrl: c.info.scriptUrl, serverDown: server.origin, sampleRaw: true, screenshot: screenshotPath('72-page-speed-server-down-mobile') });
    expect(load.cls).toBeLessThan(0.005);
    expect(load.rawFrames).toEqual([]);
    expect(load.slots.length).toBe(3);
    expect(load.slots.find((s) => s.type === 'header')).toMatchObject({ shown: true, inView: true });
    for (const slot of load.slots) expect(slot).toMatchObject({ shown: slot.inView, linked: false, src: '' });
  });
});
