/**
 * In Chromium on one fixture search page per provider (mxs, dealer-inspire, custom)
 * and for each upsell strategy (manufacturer, inventory, custom): for every slot, the model of the
 * `<a>` link, the model the beacons name and the image response's X-Banner-Model are the same;
 * no rendered creative is drawn at an aspect ratio more than 1 % off its own (a 1920x300 header in
 * the 600x500 mobile header slot is letterboxed, not stretched); a page model the dealer does not
 * have hides the slots and requests no image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { apiSignIn, beaconsOf, closeAll, createSiteDealer, jsonApi, launchBrowser, newPage, recordBeacons, screenshotPath, startDealerSite, sharedServer, type DealerSite, type JsonApi, type ServerHandle } from './harness';
import { makeBanner, multipartBody } from '../fixtures/images';
import { readFileSync } from 'node:fs';
import { modelKey } from '../../src/domain/model-keys';

let server: ServerHandle;
let browser: Browser;
let cookie = '';
let api: JsonApi;
const sites: DealerSite[] = [];

async function postFiles(path: string, files: Array<{ filename: string; data: Buffer }>) {
  const { body, contentType } = multipartBody(files);
  const res = await fetch(`${server.origin}${path}`, { method: "POST", headers: { cookie, "content-type": contentType }, body: new Uint8Array(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

const PROVIDERS = [
  { provider: 'mxs', page: (m: string) => `/new-inventory?new=true&model=${encodeURIComponent(m)}&fq=1`, modelOf: (u: URL) => u.searchParams.get('model') },
  { provider: 'dealer-inspire', page: (m: string) => `/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=${encodeURIComponent(m)}&_dFR%5Btype%5D%5B0%5D=New`, modelOf: (u: URL) => u.searchParams.get('_dFR[model][0]') },
  { provider: 'custom', page: (m: string) => `/inventory?model=${encodeURIComponent(m)}&type=new`, modelOf: (u: URL) => u.searchParams.get('model') },
] as const;

/** Expected upsell target per strategy for the two page models, by the Honda catalogue and the inventory fixture. */
const EXPECTED_UPSELL: Record<string, Record<string, string>> = {
  manufacturer: { Civic: 'accord', Accord: 'crv' },
  inventory: { Civic: 'civic', Accord: 'crv' }, // honda-inventory.csv: civic -> civic (Higher Trim), accord -> cr-v
  custom: { Civic: 'pilot', Accord: 'odyssey' },
};

beforeAll(async () => {
  server = await sharedServer('dealers');
  cookie = await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123');
  api = jsonApi(server.origin, cookie);
  browser = await launchBrowser();
});
afterAll(() => closeAll(browser, sites, server));

/** A Honda dealer on `provider`, with creatives of several shapes and the inventory fixture applied. */
async function honda(provider: string, name = `Honda ${provider} Slots`): Promise<string> {
  const dealerId = await createSiteDealer(api, { name, manufacturer: 'honda', provider });
  await postFiles(`/api/dealers/${dealerId}/assets`, [
    { filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) },
    { filename: 'new_2025_honda_accord_se_350x564.jpg', data: await makeBanner(350, 564) },
    { filename: 'new_2025_honda_cr-v_ex_1920x300.jpg', data: await makeBanner(1920, 300) },
    { filename: 'new_2025_honda_pilot_touring_600x500.jpg', data: await makeBanner(600, 500) },
  ]);
  await postFiles(`/api/dealers/${dealerId}/inventory`, [{ filename: 'honda-inventory.csv', data: readFileSync('tests/fixtures/inventory/honda-inventory.csv') }]);
  return dealerId;
}

interface SlotSeen {
  type: string;
  linkModel: string;
  imageModel: string | undefined;
  beaconModels: string[];
}

/** Opens a page, clicks every slot (navigation prevented) and reads links, image headers and beacons. */
async function visit(page: Page, url: string, modelOf: (u: URL) => string | null): Promise<SlotSeen[]> {
  const imageModels = new Map<string, string>();
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/asset')) imageModels.set(u.searchParams.get('type')!, r.headers()['x-banner-model'] ?? '');
  });
  await page.goto(url);
  await page.evaluate(() => document.addEventListener('click', (e) => e.preventDefault()));
  const seen: SlotSeen[] = [];
  for (const type of ['header', 'primary', 'upsell']) {
    const slot = page.locator(`.dc-banner[data-dc-type="${type}"]`);
    await slot.locator('img').waitFor();
    await page.waitForFunction((t) => (document.querySelector(`.dc-banner[data-dc-type="${t}"] img`) as HTMLImageElement | null)?.complete === true, type);
    await slot.locator('a').click();
    seen.push({ type, linkModel: modelKey(modelOf(new URL((await slot.locator('a').getAttribute('href'))!)) ?? ''), imageModel: imageModels.get(type), beaconModels: [] });
  }
  // One click beacon per slot. A click before the 1-second view carries its impression (imp), one
  // after it follows the impression's own beacon: either way each beacon names the slot's model.
  await page.waitForFunction(() => (window as unknown as { __beacons: string[] }).__beacons.filter((t) => JSON.parse(t).event === 'click').length >= 3);
  const beacons = await beaconsOf(page);
  for (const s of seen) s.beaconModels = beacons.filter((b) => b.type === s.type).map((b) => modelKey(b.model));
  return seen;
}

/** Per rendered banner image: its natural aspect and the aspect it is drawn at (object-fit aware). */
function drawnAspects(page: Page) {
  return page.$$eval('.dc-banner img', (imgs) =>
    (imgs as HTMLImageElement[]).map((img) => {
      const fit = getComputedStyle(img).objectFit;
      const natural = img.naturalWidth / img.naturalHeight;
      const box = img.clientWidth / img.clientHeight;
      // contain / scale-down draw the image at its own ratio inside the box; fill (the default) stretches it to the box.
      const drawn = fit === 'contain' || fit === 'scale-down' || fit === 'none' ? natural : fit === 'cover' ? natural : box;
      return { src: img.currentSrc, natural, drawn, fit, box };
    }),
  );
}

async function beaconPage(): Promise<Page> {
  const page = await newPage(browser, { viewport: { width: 1366, height: 1600 } });
  await recordBeacons(page);
  return page;
}

describe.each(PROVIDERS)('provider $provider', (p) => {
  let dealerId = '';
  let site: DealerSite;

  beforeAll(async () => {
    dealerId = await honda(p.provider);
    site = await startDealerSite(`${server.origin}/scripts/dc-banners-${dealerId}.js`, 'provider-srp.html');
    sites.push(site);
  });

  it.each(['manufacturer', 'inventory', 'custom'])('strategy %s: link, beacons and X-Banner-Model name the same model in every slot', async (strategy) => {
    const saved = await api('PUT', `/api/dealers/${dealerId}/configs`, { customUpsellLogic: strategy, customUpsellRules: { civic: 'pilot', accord: 'odyssey' } });
    expect(saved.status).toBe(200);
    for (const pageModel of ['Civic', 'Accord']) {
      const page = await beaconPage();
      const seen = await visit(page, `${site.origin}${p.page(pageModel)}`, p.modelOf);
      for (const s of seen) {
        const expected = s.type === 'upsell' ? EXPECTED_UPSELL[strategy]![pageModel]! : modelKey(pageModel);
        expect({ slot: s.type, link: s.linkModel, image: s.imageModel }, `${pageModel} ${s.type}`).toEqual({ slot: s.type, link: expected, image: expected });
        expect(s.beaconModels.length, `${pageModel} ${s.type} beacons`).toBeGreaterThan(0);
        expect(new Set(s.beaconModels), `${pageModel} ${s.type} beacons`).toEqual(new Set([expected]));
      }
      for (const a of await drawnAspects(page)) expect(Math.abs(a.drawn - a.natural) / a.natural, a.src).toBeLessThanOrEqual(0.01);
      if (strategy === 'manufacturer' && pageModel === 'Civic') await page.screenshot({ path: screenshotPath(`70-slots-${p.provider}`), fullPage: true });
      await page.close();
    }
  });

  it('hides the slots of a model the dealer does not have and requests no image', async () => {
    const page = await beaconPage();
    const images: string[] = [];
    page.on('request', (r) => r.url().includes('/asset?') && images.push(r.url()));
    await page.goto(`${site.origin}${p.page('Call 555-0100 for 90% off!')}`);
    await page.waitForFunction(() => !document.body.textContent?.includes('[dc-banner') && document.querySelectorAll('.dc-banner').length === 3);
    for (const type of ['header', 'primary', 'upsell']) expect(await page.locator(`.dc-banner[data-dc-type="${type}"]`).isVisible()).toBe(false);
    expect(await page.locator('.dc-banner img').count()).toBe(0);
    expect(images).toEqual([]);
    await page.close();
  });
});

describe('never distorted', () => {
  it('shows a 1920x300 creative in the 600x500 mobile header letterboxed at its own ratio, on the branding colour', async () => {
    const dealerId = await honda('mxs', 'Honda Letterbox Motors');
    const site = await startDealerSite(`${server.origin}/scripts/dc-banners-${dealerId}.js`, 'provider-srp.html');
    sites.push(site);
    const page = await newPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto(`${site.origin}/new-inventory?new=true&model=civic`);
    const img = page.locator('.dc-banner[data-dc-type="header"] img');
    await img.waitFor();
    await page.waitForFunction(() => (document.querySelector('.dc-banner[data-dc-type="header"] img') as HTMLImageElement).naturalWidth > 0);
    const [a] = await drawnAspects(page);
    expect(a!.box).toBeCloseTo(600 / 500, 1); // the slot keeps its shape (no layout change)
    expect(a!.fit).toBe('contain');
    expect(a!.natural).toBeCloseTo(1920 / 300, 1); // the creative keeps its own
    const background = await page.locator('.dc-banner[data-dc-type="header"]').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    await page.screenshot({ path: screenshotPath('71-letterboxed-mobile-header') });
    await page.close();
  });
});
