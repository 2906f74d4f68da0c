/**
 * The two dealer settings the embed script reads, in Chromium on the mxs search page with the tag
 * the Script page hands out:
 * - dataLayer events (on by default): a page with Google Tag Manager's `window.dataLayer` gets
 *   exactly one dc_banner_view per impression the script counts and one dc_banner_click per click,
 *   naming the slot's model, its slot type and the creative the image endpoint answered
 *   (X-Banner-Creative); a page without a dataLayer is left without one; with the setting off
 *   (switched off by the dealer's manager on Configuration, Website) the page's dataLayer gets
 *   nothing while the beacons still go;
 * - slots without a banner, set to 'hide': on the Accord page, whose upsell slot shows CR-V, a
 *   model without any creative, that slot gets no box and no image request, from the inline
 *   snippet's first paint on (no layout shift at all), and no impression; the slots with a
 *   creative (Accord's) show and are counted; on desktop and on the 390 px phone profile
 *   (screenshots embed-hide-empty-slot-{desktop,phone}{,-filters}).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, creativeShown, fetchScriptInfo, jsonApi, newPage, recordBeacons, screenshotPath, signedInPage, startDealerSite, type DealerSite, type JsonApi, type RunningServer, type ScriptInfo } from './harness';
import { MOBILE, observeLoad, siteAssets, startDemoEmbed } from './page-speed';
import { embeddedConfig } from '../../src/server/scripts/service';

let server: RunningServer;
let browser: Browser;
let info: ScriptInfo;
let manager: JsonApi;
const sites: DealerSite[] = [];
const SLOTS = ['header', 'primary', 'upsell'] as const;
/** Desktop, tall enough that every slot of the search page is in view at once. */
const DESKTOP: BrowserContextOptions = { viewport: { width: 1366, height: 2200 } };
/** The phone profile's device (page-speed.ts MOBILE: 390x844, its user agent), at 2x to keep screenshots small. */
const PHONE: BrowserContextOptions = { viewport: MOBILE.viewport, deviceScaleFactor: 2, isMobile: true, hasTouch: true, userAgent: MOBILE.userAgent };

beforeAll(async () => {
  ({ server, browser, info } = await startDemoEmbed());
  manager = jsonApi(server.origin, await apiSignIn(server.origin, 'manager@hondaofdemo.com', 'manager123'));
});
afterAll(() => closeAll(browser, sites, server));

async function site(tag: ScriptInfo): Promise<DealerSite> {
  const s = await startDealerSite(tag.scriptUrl, 'mxs-srp.html', { scriptTag: tag.scriptTag, assets: await siteAssets() });
  sites.push(s);
  return s;
}

interface Push {
  event: string;
  dc_model: string;
  dc_slot: string;
  dc_creative?: string;
}

/**
 * A page recording its beacons (desktop unless `profile` says otherwise); with `gtm`, the page has Google Tag Manager's
 * `window.dataLayer` from the start, as GTM's snippet in <head> makes it, and banner clicks do not
 * leave the page (the test reads the dataLayer after them).
 */
async function openPage(gtm: boolean, profile: BrowserContextOptions = DESKTOP): Promise<Page> {
  const page = await newPage(browser, profile);
  await recordBeacons(page);
  if (gtm) {
    await page.addInitScript(() => {
      (window as unknown as { dataLayer: unknown[] }).dataLayer = [];
      document.addEventListener('click', (e) => e.preventDefault());
    });
  }
  return page;
}

const pushes = (page: Page) => page.evaluate(() => (window as unknown as { dataLayer?: Push[] }).dataLayer);
const beacons = async (page: Page, event: string) => (await beaconsOf(page)).filter((b) => b.event === event);
/** The creative the image endpoint answers for an image URL (X-Banner-Creative). */
async function creativeOf(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.headers.get('x-banner-creative')!;
}
const bySlot = (a: { dc_slot: string }, b: { dc_slot: string }) => a.dc_slot.localeCompare(b.dc_slot);

describe('dataLayer events', () => {
  it('one dc_banner_view per counted impression and one dc_banner_click per click, naming model, slot and creative', async () => {
    const s = await site(info);
    const page = await openPage(true);
    await page.goto(`${s.origin}/new-inventory?new=true&model=civic`);
    const creatives: Record<string, string> = {};
    for (const type of SLOTS) creatives[type] = await creativeOf(await creativeShown(page, type));
    await expect.poll(async () => (await beacons(page, 'impression')).length, { timeout: 15_000 }).toBe(3);
    const impressions = await beacons(page, 'impression');
    const expected = impressions.map((b) => ({ event: 'dc_banner_view', dc_model: b.model, dc_slot: b.type, dc_creative: creatives[b.type] }));
    expect(((await pushes(page)) ?? []).sort(bySlot)).toEqual(expected.sort(bySlot));
    // Asset ids (the demo dealer's uploads), not a source name or nothing.
    expect(Object.values(creatives).every((c) => /^[\w-]{8,}$/.test(c) && c !== 'placeholder')).toBe(true);

    for (const type of ['primary', 'primary', 'header'] as const) await page.locator(`.dc-banner[data-dc-type="${type}"] a`).click();
    await expect.poll(async () => (await beacons(page, 'click')).length).toBe(3);
    const clicks = ((await pushes(page)) ?? []).filter((p) => p.event === 'dc_banner_click');
    expect(clicks).toEqual((await beacons(page, 'click')).map((b) => ({ event: 'dc_banner_click', dc_model: b.model, dc_slot: b.type, dc_creative: creatives[b.type] })));
    expect(clicks.map((c) => c.dc_slot)).toEqual(['primary', 'primary', 'header']);
    expect(((await pushes(page)) ?? []).filter((p) => p.event === 'dc_banner_view')).toHaveLength(3); // clicks after the view add none
    await page.close();
  });

  it('a page without a dataLayer is left without one', async () => {
    const s = await site(info);
    const page = await openPage(false);
    await page.goto(`${s.origin}/new-inventory?new=true&model=civic`);
    for (const type of SLOTS) await creativeShown(page, type);
    await expect.poll(async () => (await beacons(page, 'impression')).length, { timeout: 15_000 }).toBe(3);
    expect(await page.evaluate(() => 'dataLayer' in window)).toBe(false);
    await page.close();
  });

  it('with the setting off, the page gets no event while impressions and clicks are still counted', async () => {
    // Switched off where the dealer's manager does it: Configuration, Website tab.
    const app = await signedInPage(browser, server.origin, 'manager@hondaofdemo.com', 'manager123');
    await app.goto(`${server.origin}/dealer/config`);
    await app.getByRole('tab', { name: 'Website' }).click();
    const setting = app.getByRole('switch', { name: "Send banner events to the page's dataLayer (Google Tag Manager)" });
    expect(await setting.isChecked()).toBe(true);
    await setting.click();
    await app.getByRole('button', { name: 'Save Changes' }).click();
    await app.getByText('Configuration saved').waitFor();
    expect((await manager('GET', '/api/dealers/honda-of-demo/configs')).json.dataLayerEvents).toBe(false);
    await app.close();
    const s = await site(info); // the same tag: the setting lives in the script, not the snippet
    const page = await openPage(true);
    await page.goto(`${s.origin}/new-inventory?new=true&model=civic`);
    for (const type of SLOTS) await creativeShown(page, type);
    await expect.poll(async () => (await beacons(page, 'impression')).length, { timeout: 15_000 }).toBe(3);
    await page.locator('.dc-banner[data-dc-type="primary"] a').click();
    await expect.poll(async () => (await beacons(page, 'click')).length).toBe(1);
    // The script pushes in the same task as it hands over the beacon: none came with these.
    expect(await pushes(page)).toEqual([]);
    expect((await manager('PUT', '/api/dealers/honda-of-demo/configs', { dataLayerEvents: true })).status).toBe(200);
    await page.close();
  });
});

describe('slots without a banner', () => {
  it.each([
    ['desktop', DESKTOP],
    ['phone (390 px)', PHONE],
  ] as const)("'hide' on %s: no box, no image and no impression for a slot without a creative; no layout shift", async (name, profile) => {
    expect((await manager('PUT', '/api/dealers/honda-of-demo/configs', { emptySlots: 'hide' })).status).toBe(200);
    const tag = await fetchScriptInfo(server.origin, 'honda-of-demo'); // the snippet learns the bare slots
    const config = embeddedConfig(await (await fetch(tag.scriptUrl)).text());
    // Accord has its inline creative (shown whole in the header too); its upsell target CR-V has none.
    expect(config.bare?.accord).toBe('u');
    expect(config.bare?.civic).toBeUndefined();
    const s = await site(tag);
    const page = await openPage(true, profile);
    await observeLoad(page);
    const imageTypes: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.endsWith('/asset')) imageTypes.push(url.searchParams.get('type')!);
    });
    // The page's own script writes the model's name into its text (Civic -> Accord), which shifts
    // the listing: not what this test measures.
    await page.route('**/assets/mxs-srp.js', (route) => route.fulfill({ contentType: 'text/javascript', body: '' }));
    // The inline snippet alone first: the main script is held until the document is parsed.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(tag.scriptUrl, async (route) => (await held, route.continue()));
    await page.goto(`${s.origin}/new-inventory?new=true&model=accord`, { waitUntil: 'domcontentloaded' });
    const box = (type: string) => page.locator(`.dc-banner[data-dc-type="${type}"]`).boundingBox();
    expect(await box('upsell')).toBeNull();
    expect((await box('primary'))?.height).toBeGreaterThan(0);
    expect((await box('header'))?.height).toBeGreaterThan(0);
    release();
    // Each shown slot in view until it is counted (on the phone they are not all in view at once).
    for (const type of ['header', 'primary']) {
      await page.locator(`.dc-banner[data-dc-type="${type}"]`).scrollIntoViewIfNeeded();
      await creativeShown(page, type);
      await expect.poll(async () => (await beacons(page, 'impression')).map((b) => b.type), { timeout: 15_000 }).toContain(type);
    }
    await expect.poll(async () => (await beacons(page, 'impression')).map((b) => b.type).sort(), { timeout: 15_000 }).toEqual(['header', 'primary']);
    const upsell = page.locator('.dc-banner[data-dc-type="upsell"]');
    expect(await upsell.count()).toBe(1);
    expect(await upsell.boundingBox()).toBeNull(); // display: none, no box
    expect([...new Set(imageTypes)].sort()).toEqual(['header', 'primary']);
    const shifts = await page.evaluate(() => (window as unknown as { __load: { shifts: Array<{ value: number }> } }).__load.shifts);
    expect(shifts.reduce((sum, x) => sum + x.value, 0), JSON.stringify(shifts)).toBe(0);
    // The views pushed are the shown slots'.
    expect(((await pushes(page)) ?? []).map((p) => `${p.event} ${p.dc_slot}`).sort()).toEqual(['dc_banner_view header', 'dc_banner_view primary']);
    // The page from its top down to the primary slot, and the filters box, whose upsell slot takes no space.
    const shot = `embed-hide-empty-slot-${name.split(' ')[0]}`;
    await page.evaluate(() => window.scrollTo(0, 0)); // the site's fixed header back at the top of the shot
    const bottom = await page.locator('.dc-banner[data-dc-type="primary"]').evaluate((el) => el.getBoundingClientRect().bottom + window.scrollY);
    await page.screenshot({ path: screenshotPath(shot), fullPage: true, clip: { x: 0, y: 0, width: page.viewportSize()!.width, height: Math.ceil(bottom) + 16 } });
    await page.locator('aside.filters').screenshot({ path: screenshotPath(`${shot}-filters`) });
    await page.close();
  });
});
