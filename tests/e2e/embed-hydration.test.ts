/**
 * A server-rendered React 19 page (tests/fixtures/dealer-site/react-ssr-app.tsx rendered here with
 * react-dom/server, hydrated in the browser with hydrateRoot) whose server HTML already holds the
 * banner shortcodes and the `<div data-dc-banner="header">` component, in Chromium with the tag the
 * Script page hands out:
 * - with the container marked `data-dc-hydrate`: React hydrates without a mismatch (no #418, no
 *   console error, the server's nodes kept), no frame paints a raw shortcode, no layout shift, and
 *   one impression per slot and page view, in the browser and in the dealer's analytics, across a
 *   pushState navigation to another model and back;
 * - the same on a phone (390 px);
 * - the control: the same page unmarked makes React report the mismatch (#418) the mark prevents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, newPage, recordBeacons, screenshotPath, startDealerSite, type DealerSite, type RunningServer, type ScriptInfo, type SiteAsset } from './harness';
import { MOBILE, observeLoad, rawTextFrames, reactBundle, siteAssets, startDemoEmbed } from './page-speed';
import { App } from '../fixtures/dealer-site/react-ssr-app';

let server: RunningServer;
let browser: Browser;
let info: ScriptInfo;
let bundle: SiteAsset;
let cookie = '';
const sites: DealerSite[] = [];
const SRP = '/new-inventory?new=true&model=civic';
const SLOTS = ['header', 'primary', 'upsell'] as const;
const LABELS: Record<string, string> = { civic: 'Civic', accord: 'Accord' };

beforeAll(async () => {
  ({ server, browser, info } = await startDemoEmbed());
  bundle = await reactBundle('react-ssr.tsx');
});
afterAll(() => closeAll(browser, sites, server));

/** The fixture site serving the page React renders for SRP on the server, its container's attributes `rootAttrs`. */
async function ssrSite(rootAttrs: string): Promise<DealerSite> {
  const html = renderToString(createElement(App, { url: `http://127.0.0.1${SRP}` }));
  const site = await startDealerSite(info.scriptUrl, 'react-srp.html', { scriptTag: info.scriptTag, assets: { ...(await siteAssets()), '/assets/react-ssr.js': bundle }, vars: { BUNDLE: '/assets/react-ssr.js', SSR: html, ROOT_ATTRS: rootAttrs } });
  sites.push(site);
  return site;
}

/** The demo dealer's impressions as its manager's analytics API reports them (the read flushes buffered events). */
async function impressions(): Promise<number> {
  if (!cookie) cookie = await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123');
  const res = await fetch(`${server.origin}/api/dealers/honda-of-demo/analytics?period=24h`, { headers: { cookie } });
  return ((await res.json()) as { current: { impressions: number } }).current.impressions;
}

/**
 * A page that records its beacons, animation frames showing raw shortcode text and layout shifts
 * (observeLoad), console errors and page errors (`errors`), and the server-rendered `<h1>` as the
 * parser made it (`__ssrH1`: still the page's after hydration unless React re-rendered the root).
 */
async function watchedPage(opts: Parameters<typeof newPage>[1] = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await newPage(browser, opts);
  await recordBeacons(page);
  await observeLoad(page, { sampleRaw: true });
  await page.addInitScript(() => {
    const w = window as unknown as { __ssrH1?: Element };
    const watch = new MutationObserver(() => {
      w.__ssrH1 = document.querySelector('#root h1') ?? undefined;
      if (w.__ssrH1) watch.disconnect();
    });
    watch.observe(document, { childList: true, subtree: true });
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  return { page, errors };
}

/** Per slot type, how many slots the page has and, for a shown one with its creative loaded, the model it is for. */
function slotState(page: Page): Promise<string[]> {
  return page.evaluate((types) => {
    return types.map((type) =>
      [...document.querySelectorAll<HTMLElement>(`[data-dc-banner="${type}"], .dc-banner[data-dc-type="${type}"]`)]
        .map((el) => {
          const img = el.querySelector<HTMLImageElement>('a img');
          const loaded = el.offsetHeight > 0 && !!img && img.complete && img.naturalWidth > 0;
          return loaded ? `shown ${new URL(img.src).searchParams.get('model')}` : 'waiting';
        })
        .join(' | '),
    );
  }, [...SLOTS]);
}

/** Waits until the page shows exactly one banner per slot type, each loaded and for `model`, under its heading. */
async function showsModel(page: Page, model: string): Promise<void> {
  await expect.poll(() => page.locator('h1').innerText(), { timeout: 20_000 }).toBe(`New Honda ${LABELS[model]} for sale`);
  await expect.poll(() => slotState(page), { timeout: 20_000 }).toEqual(SLOTS.map(() => `shown ${model}`));
}

/** The impression beacons sent so far, as `pv type` strings. */
async function impressionKeys(page: Page): Promise<string[]> {
  return (await beaconsOf(page)).filter((b) => b.event === 'impression').map((b) => `${b.pv} ${b.type}`);
}

/** Asserts that no layout shift without recent input happened so far (observeLoad), naming the shifted elements otherwise. */
async function expectNoShift(page: Page): Promise<void> {
  const shifts = await page.evaluate(() => (window as unknown as { __load: { shifts: Array<{ value: number }> } }).__load.shifts);
  expect(shifts.reduce((sum, s) => sum + s.value, 0), JSON.stringify(shifts)).toBe(0);
}

/** React's recoverable errors (hydration mismatches) the fixture kept. */
const hydrationErrors = (page: Page) => page.evaluate(() => (window as unknown as { __hydrationErrors?: string[] }).__hydrationErrors ?? null);

describe('server-rendered React 19 page hydrated with hydrateRoot', () => {
  it('hydrates without a mismatch, paints no raw shortcode, shifts nothing, counts one impression per slot and page view across pushState and back', async () => {
    const site = await ssrSite(' data-dc-hydrate');
    const before = await impressions();
    const { page, errors } = await watchedPage();
    // React's bundle is held until our script has run and frames have been painted: the server
    // markup waits for hydration as it would on a slow phone.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/assets/react-ssr.js', async (route) => (await held, route.continue()));
    await page.goto(site.origin + SRP, { waitUntil: 'commit' });
    await page.waitForFunction(() => (window as unknown as { dcBanners?: unknown }).dcBanners !== undefined && document.querySelector('.results'));
    await expect.poll(async () => (await rawTextFrames(page)).frames).toBeGreaterThan(5);
    const waiting = await page.evaluate(() => ({
      slotsMade: document.querySelectorAll('#root .dc-banner').length,
      promo: document.querySelector('.card.promo')!.textContent,
      header: document.querySelector('[data-dc-banner="header"]')!.childNodes.length,
      headerHeight: (document.querySelector('[data-dc-banner="header"]') as HTMLElement).offsetHeight,
      painted: document.body.innerText.includes('[dc-banner'),
    }));
    // Nothing in React's markup changed (the shortcodes only veiled), the header's box is reserved.
    expect(waiting).toEqual({ slotsMade: 0, promo: '[dc-banner type="primary"]', header: 0, headerHeight: expect.any(Number), painted: false });
    expect(waiting.headerHeight).toBeGreaterThan(150);
    release();
    await showsModel(page, 'civic');
    // React took the server's nodes (no client re-render of the root) and runs its effects.
    expect(await page.evaluate(() => (window as unknown as { __ssrH1?: Element }).__ssrH1 === document.querySelector('#root h1'))).toBe(true);
    await expect.poll(() => page.locator('main').getAttribute('data-views')).toBe('1');
    await expect.poll(async () => (await impressionKeys(page)).length).toBe(3);
    await expectNoShift(page);
    await page.screenshot({ path: screenshotPath('75-react-ssr-hydrated'), fullPage: true });

    await page.getByRole('link', { name: 'Accord', exact: true }).click();
    await showsModel(page, 'accord');
    await expect.poll(async () => (await impressionKeys(page)).length).toBe(6);
    await page.goBack();
    await showsModel(page, 'civic');
    await expect.poll(async () => (await impressionKeys(page)).length).toBe(9);

    // Three page views (civic, accord, civic again), each slot counted once in each.
    const keys = await impressionKeys(page);
    const views = [...new Set(keys.map((k) => k.split(' ')[0]))];
    expect(views).toHaveLength(3);
    for (const pv of views) expect(keys.filter((k) => k.startsWith(`${pv} `)).map((k) => k.split(' ')[1]).sort()).toEqual([...SLOTS]);
    await expect.poll(impressions).toBe(before + 9);

    expect(await hydrationErrors(page)).toEqual([]);
    expect(errors).toEqual([]);
    const frames = await rawTextFrames(page);
    expect(frames.frames).toBeGreaterThan(10);
    expect(frames.raw).toEqual([]);
    // The words React renders beside the shortcode stay; only the shortcode went.
    expect(await page.locator('.filter-promo').innerText()).toMatch(/^Compare the Civic with its bigger sibling:\s*$/);
    // No veil left behind: the only sheet of ours is the banner element's.
    expect(await page.evaluate(() => document.adoptedStyleSheets.map((s) => [...s.cssRules].some((r) => r.cssText.includes('hidden'))))).toEqual([false]);
    await page.close();
  });

  it('on a phone: no mismatch, no raw shortcode, no layout shift', async () => {
    const site = await ssrSite(' data-dc-hydrate');
    const { page, errors } = await watchedPage({ viewport: MOBILE.viewport, deviceScaleFactor: 2, isMobile: true, hasTouch: true, userAgent: MOBILE.userAgent });
    await page.goto(site.origin + SRP);
    await expect.poll(() => slotState(page), { timeout: 20_000 }).toEqual(SLOTS.map(() => 'shown civic'));
    expect(await page.evaluate(() => (window as unknown as { __ssrH1?: Element }).__ssrH1 === document.querySelector('#root h1'))).toBe(true);
    expect(await hydrationErrors(page)).toEqual([]);
    expect(errors).toEqual([]);
    expect((await rawTextFrames(page)).raw).toEqual([]);
    await expectNoShift(page);
    await page.screenshot({ path: screenshotPath('76-react-ssr-phone'), fullPage: true });
    await page.close();
  });

  it('control: the same page without the mark makes React report the hydration mismatch (#418) the mark prevents', async () => {
    const site = await ssrSite('');
    const { page } = await watchedPage();
    await page.goto(site.origin + SRP);
    await expect.poll(() => hydrationErrors(page), { timeout: 20_000 }).toEqual([expect.stringContaining('#418')]);
    await page.close();
  });
});
