/**
 * Late content and frameworks, in Chromium with the tag we hand out:
 * - a vanilla single-page app that renders its results (the CMS's shortcodes included) ~300 ms
 *   after each pushState gets its banners without calling anything, on the first view and after
 *   navigations, never painting a raw shortcode; with our script blocked, the snippet still takes
 *   the late shortcodes (reserved, empty boxes in view; collapsed out of view);
 * - a React 19 search page that renders the shortcodes in JSX (a text child React rewrites, text
 *   nodes it updates, a subtree it remounts) survives 3 model changes and back/forward: no page
 *   error, the app still renders, exactly one banner per slot showing the page's model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeAll, newPage, screenshotPath, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo } from './harness';
import { observeLoad, rawTextFrames, reactBundle, siteAssets, startDemoEmbed } from './page-speed';

let server: RunningServer;
let browser: Browser;
let info: ScriptInfo;
const sites: DealerSite[] = [];
const SLOTS = ['header', 'primary', 'upsell'] as const;
const LABELS: Record<string, string> = { civic: 'Civic', accord: 'Accord', 'cr-v': 'CR-V', pilot: 'Pilot' };

/** The SPA's listings endpoint: what a search API answers, with the shortcodes the dealer's CMS put in its fields. */
function listings(url: URL) {
  const model = url.searchParams.get('model') ?? 'civic';
  const label = LABELS[model] ?? model;
  return {
    title: `New Honda ${label} for sale`,
    headerPromo: '[dc-banner type="header"]',
    inlinePromo: `[dc-banner type=”primary”]`,
    footerPromo: `More ${label} offers: [DC-BANNER TYPE=upsell]`,
    listings: ['LX', 'Sport', 'EX', 'Touring'].map((trim, i) => ({ title: `2025 Honda ${label} ${trim}`, vin: `2HGFE2F5${i}SH00${2000 + i}`, price: `$${(24_650 + i * 2_100).toLocaleString('en-US')}` })),
  };
}

beforeAll(async () => {
  ({ server, browser, info } = await startDemoEmbed());
});
afterAll(() => closeAll(browser, sites, server));

/** The slots in the document: per type how many there are and, for the shown ones, the model their creative is for. */
function slotState(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.dc-banner')].map((el) => {
      const img = el.querySelector<HTMLImageElement>('a img');
      return {
        type: el.dataset.dcType ?? '',
        shown: el.offsetHeight > 0,
        inView: el.getBoundingClientRect().bottom > 0 && el.getBoundingClientRect().top < innerHeight,
        loaded: !!img && img.complete && img.naturalWidth > 0,
        model: img ? new URL(img.src).searchParams.get('model') : null,
      };
    }),
  );
}

/** Waits until the SPA has rendered the results of `model` (its listings answer arrived). */
async function spaShows(page: Page, model: string) {
  await page.locator('#app[aria-busy="false"] h1', { hasText: `New Honda ${LABELS[model]} for sale` }).waitFor();
}

/** Waits until the page shows exactly one banner per slot type, each loaded and for `model`. */
async function expectOneBannerPerSlot(page: Page, model: string) {
  await expect
    .poll(async () => {
      const slots = await slotState(page);
      return SLOTS.map((t) => slots.filter((s) => s.type === t).map((s) => `${s.shown && s.loaded ? 'shown' : 'waiting'} ${s.model}`).join(' | '));
    }, { timeout: 20_000 })
    .toEqual(SLOTS.map(() => `shown ${model}`));
}

describe('vanilla single-page app with late content', () => {
  it('finds shortcodes rendered ~300 ms after load and after each pushState, without refresh(), never painting them raw', async () => {
    const site = await startDealerSite(info.scriptUrl, 'spa.html', { scriptTag: info.scriptTag, assets: await siteAssets(), json: { '/api/listings': { delayMs: 300, body: listings } } });
    sites.push(site);
    const page = await newPage(browser);
    await observeLoad(page, { sampleRaw: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await spaShows(page, 'civic');
    await expectOneBannerPerSlot(page, 'civic');
    // Count refresh() calls from here on: the app must not need any.
    await page.evaluate(() => {
      const api = (window as unknown as { dcBanners: { refresh(): void } }).dcBanners;
      const refresh = api.refresh;
      (window as unknown as { __refreshes: number }).__refreshes = 0;
      api.refresh = () => ((window as unknown as { __refreshes: number }).__refreshes++, refresh());
    });
    // The banners follow the address at once; the slots checked are those of the new results.
    for (const model of ['accord', 'cr-v']) {
      await page.getByRole('link', { name: LABELS[model]!, exact: true }).click();
      await spaShows(page, model);
      await expectOneBannerPerSlot(page, model);
    }
    await page.goBack();
    await spaShows(page, 'accord');
    await expectOneBannerPerSlot(page, 'accord');
    await page.screenshot({ path: screenshotPath('73-spa-late-content'), fullPage: true });
    expect(await page.evaluate(() => (window as unknown as { __refreshes: number }).__refreshes)).toBe(0);
    const frames = await rawTextFrames(page);
    expect(frames.frames).toBeGreaterThan(10);
    expect(frames.raw).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('with our script blocked, the snippet still takes the late shortcodes: reserved boxes in view, collapsed below the fold, no raw text', async () => {
    const site = await startDealerSite(info.scriptUrl, 'spa.html', { scriptTag: info.scriptTag, assets: await siteAssets(), json: { '/api/listings': { delayMs: 300, body: listings } } });
    sites.push(site);
    const page = await newPage(browser);
    await observeLoad(page, { sampleRaw: true });
    await page.route(info.scriptUrl, (route) => route.abort('blockedbyclient'));
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await page.locator('#app[aria-busy="false"]').waitFor();
    await page.getByRole('link', { name: 'Accord', exact: true }).click();
    await page.locator('#app[aria-busy="false"] h1', { hasText: 'Accord' }).waitFor();
    // The snippet gave the page up (our script did not load): the late slots in view keep their
    // box, those out of view collapse (a collapsed slot has no box, so it is never "in view").
    await expect.poll(async () => (await slotState(page)).map((s) => `${s.type} ${s.shown ? 'reserved' : 'collapsed'} ${s.inView ? 'in view' : 'out of view'}`).filter((s) => /reserved out|collapsed in/.test(s))).toEqual([]);
    const slots = await slotState(page);
    expect(slots.map((s) => s.type).sort()).toEqual([...SLOTS]);
    expect(slots.find((s) => s.type === 'header')?.shown).toBe(true);
    expect((await rawTextFrames(page)).raw).toEqual([]);
    expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/\[dc-banner/i);
    await page.close();
  });
});

describe('React 19 search page', () => {
  it('survives 3 model changes and back/forward: no page error, the app keeps rendering, one banner per slot for the page model', async () => {
    const site = await startDealerSite(info.scriptUrl, 'react-srp.html', { scriptTag: info.scriptTag, assets: { ...(await siteAssets()), '/assets/react-srp.js': await reactBundle() } });
    sites.push(site);
    const page = await newPage(browser);
    await observeLoad(page, { sampleRaw: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    await expectOneBannerPerSlot(page, 'civic');
    const views = () => page.locator('main').getAttribute('data-views');
    const expectPage = async (model: string, renders: string) => {
      await expectOneBannerPerSlot(page, model);
      await expect.poll(() => page.locator('h1').innerText()).toBe(`New Honda ${LABELS[model]} for sale`);
      expect(await views()).toBe(renders); // React is still mounted and rendering
    };
    for (const [i, model] of ['accord', 'cr-v', 'pilot'].entries()) {
      await page.getByRole('link', { name: LABELS[model]!, exact: true }).click();
      await expectPage(model, String(i + 2));
    }
    await page.screenshot({ path: screenshotPath('74-react-srp'), fullPage: true });
    await page.goBack();
    await expectPage('cr-v', '5');
    await page.goBack();
    await expectPage('accord', '6');
    await page.goForward();
    await expectPage('cr-v', '7');
    // The text React rewrites keeps its words; only the shortcode was blanked.
    expect(await page.locator('.srp-banner').innerText()).toMatch(/^CR-V offers this month:\s*$/);
    expect(await page.locator('.filters p').innerText()).toContain('Compare the CR-V with its bigger sibling:');
    expect(errors).toEqual([]);
    expect((await rawTextFrames(page)).raw).toEqual([]);
    await page.close();
  });
});
