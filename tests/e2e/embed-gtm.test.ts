/**
 * The install through a tag manager (README "Installing through a tag manager"), in Chromium on
 * the demo dealer's mxs search page as a Google Tag Manager site has it (mxs-srp.html with
 * TAG_MANAGER: the container loader in <head>, a stand-in gtm.js that fires the Custom HTML tag
 * after the container has run, well after the first paint), on the desktop profile and the 390 px
 * phone profile (page-speed.ts DESKTOP, MOBILE: their network and CPU), each load in a fresh
 * context:
 * - the banner-element install the Script page hands out (the Custom HTML tag with the async script
 *   alone, the banner elements in the template, the banner CSS in the theme's stylesheet): no raw
 *   shortcode frame, CLS 0, the late script fills every element and each page view counts exactly
 *   one impression per slot, as the dealer's analytics API reports them over several loads;
 * - the same with gtm.js stopped by the shopper's blocker (its rule `/gtm.js?id=GTM-`): no raw
 *   frame, CLS 0, the boxes stay reserved and empty, nothing is counted;
 * - the figures the README states and nothing asserts: shortcodes in the page text with the
 *   standard tag pasted in a Custom HTML tag, and banner elements without the banner CSS (raw
 *   frames, CLS), written to test-results/gtm-figures.json;
 * - the Script page's "Install through a tag manager" section, for the dealer's manager and the
 *   admin, at 1280 and 390 px wide (screenshots in test-results).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, recordBeacons, RESULTS_DIR, screenshotPath, signedInPage, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { DESKTOP, gtmContainer, measureLoad, MOBILE, siteAssets, startDemoEmbed, type LoadMetrics, type LoadOptions, type Profile } from './page-speed';
import { SLOT_TYPES } from '../../src/domain/slots';
import { horizontalOverflow } from './a11y';

const SRP = '/new-inventory?new=true&model=civic';
/** How long the stand-in container runs before its tags fire (a real one: ~100 KB of script). */
const GTM_DELAY_MS = 300;
/** Loads per profile whose impressions are counted. */
const LOADS = 3;
/** Loads per profile and install for the README's figures: a measurement, so one in the suite unless asked for more. */
const FIGURE_LOADS = Number(process.env.FIGURE_LOADS ?? 1);

let server: RunningServer;
let browser: Browser;
let info: ScriptInfo;
let tagManager: { tag: string; markup: string[]; css: string };
let cookie = '';
const sites: DealerSite[] = [];

beforeAll(async () => {
  ({ server, browser, info } = await startDemoEmbed());
  cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const res = await fetch(`${server.origin}/api/dealers/honda-of-demo/script`, { headers: { cookie } });
  ({ tagManager } = (await res.json()) as { tagManager: typeof tagManager });
});
afterAll(() => closeAll(browser, sites, server));

/** The demo dealer's impressions as its manager's analytics API reports them (the read flushes buffered events). */
async function impressions(): Promise<number> {
  const res = await fetch(`${server.origin}/api/dealers/honda-of-demo/analytics?period=24h`, { headers: { cookie } });
  return ((await res.json()) as { current: { impressions: number } }).current.impressions;
}

/**
 * A GTM search page: each banner place holds `slot(type)`, the container fires `tag`, the theme's
 * stylesheet holds `css`.
 */
async function gtmSite(slot: (type: string) => string, tag: string, css: string): Promise<DealerSite> {
  const slots = Object.fromEntries(SLOT_TYPES.map((t) => [`${t.toUpperCase()}_SLOT`, slot(t)]));
  const s = await startDealerSite(info.scriptUrl, 'mxs-srp.html', {
    vars: { TAG_MANAGER: 'yes', ...slots },
    assets: { ...(await siteAssets()), '/gtm.js': gtmContainer([tag], GTM_DELAY_MS), '/assets/theme-banners.css': { body: css, type: 'text/css; charset=utf-8' } },
  });
  sites.push(s);
  return s;
}

let elementSite: DealerSite | undefined;
/** The install the Script page hands out: banner elements, the banner CSS, the Custom HTML tag. */
async function elements(): Promise<DealerSite> {
  return (elementSite ??= await gtmSite((t) => tagManager.markup.find((m) => m.includes(`"${t}"`))!, tagManager.tag, tagManager.css));
}

/** Per banner element: its type, its box height (px) and whether its creative has loaded. */
function elementState(page: Page) {
  return page.$$eval('[data-dc-banner]', (els) =>
    els.map((el) => {
      const img = el.querySelector<HTMLImageElement>('a img');
      return { type: el.getAttribute('data-dc-banner')!, height: el.getBoundingClientRect().height, children: el.childElementCount, loaded: !!img && img.complete && img.naturalWidth > 0 };
    }),
  );
}

/** The header box the dealer's sizes give on `profile`: full width of `.srp-banner`, the variant's ratio. */
async function expectedHeaderHeight(page: Page, profile: Profile): Promise<number> {
  const sizes = (await (await fetch(`${server.origin}/api/dealers/honda-of-demo/configs`, { headers: { cookie } })).json()) as { bannerSizes: Record<string, { width: number; height: number }> };
  const size = sizes.bannerSizes[profile === MOBILE ? 'srpHeaderMobile' : 'srpHeaderDesktop']!;
  const width = await page.$eval('.srp-banner', (el) => el.getBoundingClientRect().width);
  return (Math.min(width, 1920) * size.height) / size.width;
}

/** One cold load of `site` on `profile`, raw frames sampled (measureLoad). */
function load(site: DealerSite, profile: Profile, opts: LoadOptions = {}): Promise<LoadMetrics> {
  return measureLoad(browser, site.origin + SRP, profile, { sampleRaw: true, ...opts });
}

describe.each([DESKTOP, MOBILE])('banner elements through GTM on $name', (profile) => {
  it(`${LOADS} loads: no raw frame, CLS 0, every element filled, one impression per slot and page view`, async () => {
    const site = await elements();
    const before = await impressions();
    let counted = 0;
    for (let i = 0; i < LOADS; i++) {
      let keys: string[] = [];
      let headerHeight = [0, 0];
      const m = await load(site, profile, {
        scriptUrl: info.scriptUrl,
        setup: recordBeacons,
        after: async (page) => {
          // The late script fills every element: each creative drawn in its reserved box.
          await page.waitForFunction(() => [...document.querySelectorAll('[data-dc-banner]')].every((el) => el.querySelector<HTMLImageElement>('a img')?.complete), undefined, { timeout: 60_000 });
          const state = await elementState(page);
          expect(state.map((s) => [s.type, s.loaded])).toEqual([
            ['header', true],
            ['upsell', true],
            ['primary', true],
          ]);
          headerHeight = [state[0]!.height, await expectedHeaderHeight(page, profile)];
          // Each slot seen for a second: one impression each, whatever is in view first.
          for (const type of SLOT_TYPES) {
            await page.locator(`[data-dc-banner="${type}"]`).scrollIntoViewIfNeeded();
            await page.waitForFunction((t) => (window as unknown as { __beacons: string[] }).__beacons.some((b) => JSON.parse(b).event === 'impression' && JSON.parse(b).type === t), type, { timeout: 30_000 });
          }
          keys = (await beaconsOf(page)).filter((b) => b.event === 'impression').map((b) => `${b.pv} ${b.type}`);
        },
      });
      expect(m.rawFrames).toEqual([]);
      expect(m.frames).toBeGreaterThan(0);
      expect(m.cls, JSON.stringify(m.shifts)).toBe(0);
      expect(m.scriptLoadedAt).not.toBeNull();
      expect(headerHeight[0]).toBeCloseTo(headerHeight[1]!, 0);
      expect(keys.map((k) => k.split(' ')[1]).sort()).toEqual([...SLOT_TYPES].sort());
      expect(new Set(keys.map((k) => k.split(' ')[0])).size).toBe(1); // one page view
      counted += keys.length;
    }
    expect(counted).toBe(LOADS * SLOT_TYPES.length);
    await expect.poll(impressions).toBe(before + counted);
  });

  it('gtm.js blocked: no raw frame, CLS 0, the boxes stay reserved and empty, nothing counted', async () => {
    const site = await elements();
    const before = await impressions();
    let state: Awaited<ReturnType<typeof elementState>> = [];
    let header = 0;
    const requested: string[] = [];
    const m = await load(site, profile, {
      banners: false,
      setup: async (page) => {
        page.on('request', (r) => void requested.push(r.url()));
        await page.route('**/gtm.js?id=GTM-*', (route) => route.abort('blockedbyclient'));
      },
      after: async (page) => {
        state = await elementState(page);
        header = await expectedHeaderHeight(page, profile);
      },
    });
    expect(m.rawFrames).toEqual([]);
    expect(m.frames).toBeGreaterThan(0);
    expect(m.cls, JSON.stringify(m.shifts)).toBe(0);
    expect(requested.some((u) => u.includes('/gtm.js?id=GTM-DCB0001'))).toBe(true); // asked for, and stopped
    expect(requested.some((u) => u.startsWith(server.origin))).toBe(false); // neither our script nor an image
    expect(state.map((s) => s.type)).toEqual(['header', 'upsell', 'primary']);
    expect(state.every((s) => s.children === 0 && s.height > 100)).toBe(true);
    expect(state[0]!.height).toBeCloseTo(header, 0);
    expect(await impressions()).toBe(before);
  });
});

describe('figures the README states', () => {
  /** Per profile and install: the CLS and raw-frame count of each load (FIGURE_LOADS). */
  const figures: Record<string, Record<string, { cls: number[]; rawFrames: number[] }>> = {};
  afterAll(() => writeFileSync(path.join(RESULTS_DIR, 'gtm-figures.json'), JSON.stringify(figures, null, 2)));

  it.each([DESKTOP, MOBILE])('shortcodes with the standard tag in GTM, and elements without the CSS, on $name', async (profile) => {
    const shortcodes = await gtmSite((t) => `[dc-banner type="${t}"]`, info.scriptTag, '');
    const bare = await gtmSite((t) => tagManager.markup.find((m) => m.includes(`"${t}"`))!, tagManager.tag, '');
    for (const [name, site] of [
      ['shortcodes, standard tag in GTM', shortcodes],
      ['elements without the CSS', bare],
    ] as const) {
      const runs: LoadMetrics[] = [];
      // One load each in the suite (the path works); the README's figures came from 3 (FIGURE_LOADS=3).
      for (let i = 0; i < FIGURE_LOADS; i++) runs.push(await load(site, profile, { scriptUrl: info.scriptUrl }));
      (figures[profile.name] ??= {})[name] = { cls: runs.map((r) => Math.round(r.cls * 1000) / 1000), rawFrames: runs.map((r) => r.rawFrames.length) };
      // The banners did arrive (what the figures are about), drawn where the page asked.
      for (const r of runs) expect(r.scriptLoadedAt).not.toBeNull();
    }
  });
});

describe('the Script pages', () => {
  it.each([
    ['dealer', 'manager@hondaofdemo.com', 'manager123', '/dealer/script'],
    ['admin', 'admin@dc-banners.com', 'admin123', '/scripts/honda-of-demo'],
  ])("the %s's page hands out the tag, the elements and the CSS, copyable, with the trade-offs", async (who, email, password, url) => {
    for (const width of [1280, 390]) {
      const page = await signedInPage(browser, server.origin, email, password, { viewport: { width, height: 900 } });
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
      await page.goto(server.origin + url);
      const section = page.getByRole('region', { name: 'Install through a tag manager' });
      await section.getByRole('button', { name: 'Copy banner CSS' }).waitFor({ timeout: 20_000 });
      await section.getByRole('button', { name: 'Copy tag manager tag' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(tagManager.tag);
      await section.getByRole('button', { name: 'Copy banner CSS' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(tagManager.css);
      for (const t of SLOT_TYPES) await section.getByRole('button', { name: `Copy ${t} banner element` }).waitFor();
      expect(await section.innerText()).toContain('the reserved spaces stay empty');
      // Nothing in the section is wider than the page (long code lines wrap), once the page has
      // settled: CI once measured 433 px at 390 right after the copies, which no run reproduced
      // (a page loaded at 6x CPU never overflowed); a lasting overflow still fails, naming what overflows.
      await expect.poll(async () => horizontalOverflow(page)).toMatchObject({ overflow: 0 });
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: screenshotPath(`gtm-install-${who}-${width}`) });
      await page.close();
    }
  });
});
