/**
 * The embed script for the dealer-inspire and custom providers (spec 01 §9
 * "Provider URL formats"; mxs is covered by vertical-slice and embed tests): dealers created
 * through the admin API, a fixture search page at each provider's URL shape, the banner shown for
 * the model in the URL and linked to that provider's inventory search, the upsell slot linked to
 * the upsell target, and the element hidden on a page of another shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { apiSignIn, closeAll, createSiteDealer, jsonApi, launchBrowser, newPage, screenshotPath, startDealerSite, sharedServer, type DealerSite, type JsonApi, type ServerHandle } from './harness';

let server: ServerHandle;
let browser: Browser;
let api: JsonApi;
const sites: DealerSite[] = [];

beforeAll(async () => {
  server = await sharedServer('dealers');
  api = jsonApi(server.origin, await apiSignIn(server.origin, 'admin@dc-banners.com', 'admin123'));
  browser = await launchBrowser();
});
afterAll(() => closeAll(browser, sites, server));

const CASES = [
  {
    provider: 'dealer-inspire',
    name: 'Toyota Inspire',
    manufacturer: 'toyota',
    page: '/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry&_dFR%5Btype%5D%5B0%5D=New',
    headerLink: '/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry&_dFR%5Btype%5D%5B0%5D=New',
    otherShape: '/used-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Camry',
  },
  {
    provider: 'custom',
    name: 'Ford Custom Motors',
    manufacturer: 'ford',
    page: '/inventory?model=Escape&type=new',
    headerLink: '/inventory?model=Escape&type=new',
    otherShape: '/inventory?model=Escape&type=used',
  },
] as const;

describe.each(CASES)('provider $provider', (c) => {
  it('shows the banner for the model in the URL, links it to the provider search, links the upsell slot to the target, hides it elsewhere', async () => {
    const dealerId = await createSiteDealer(api, { name: c.name, manufacturer: c.manufacturer, provider: c.provider });
    const rules = (await api('GET', `/api/dealers/${dealerId}/upsell-rules`)).json as { active: Record<string, string> };
    const model = new URL(`http://x${c.headerLink}`).searchParams;
    const shown = c.provider === 'custom' ? model.get('model')! : model.get('_dFR[model][0]')!;
    const target = Object.entries(rules.active).find(([k]) => k.toLowerCase() === shown.toLowerCase())?.[1];
    expect(target, `the ${c.manufacturer} defaults have an upsell rule for ${shown}`).toBeTruthy();

    const site = await startDealerSite(`${server.origin}/scripts/dc-banners-${dealerId}.js`, 'provider-srp.html');
    sites.push(site);
    const page = await newPage(browser);
    await page.goto(`${site.origin}${c.page}`);
    const header = page.locator('.dc-banner[data-dc-type="header"]');
    await header.locator('img').waitFor();
    expect(await header.locator('a').getAttribute('href')).toBe(`${site.origin}${c.headerLink}`);
    const src = await header.locator('img').getAttribute('src');
    expect(new URL(src!).searchParams.get('model')).toBe(shown);

    const upsellHref = await page.locator('.dc-banner[data-dc-type="upsell"] a').getAttribute('href');
    const upsellUrl = new URL(upsellHref!);
    const upsellModel = c.provider === 'custom' ? upsellUrl.searchParams.get('model') : upsellUrl.searchParams.get('_dFR[model][0]');
    expect(upsellModel?.toLowerCase()).toBe(target!.toLowerCase());
    await page.screenshot({ path: screenshotPath(`60-provider-${c.provider}`), fullPage: true });

    await page.goto(`${site.origin}${c.otherShape}`);
    await page.waitForFunction(() => !document.body.textContent?.includes('[dc-banner'));
    expect(await page.locator('.dc-banner[data-dc-type="header"] img').count()).toBe(0);
    expect(await page.locator('.dc-banner[data-dc-type="header"]').isVisible()).toBe(false);
    await page.close();
  });
});
