import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { assets, dealerInventory, dealers, eventRollupsHourly } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { embeddedConfig } from '../scripts/service';
import { planOf } from '../../embed/shortcodes';
import { CATALOGUE } from '../db/seed-catalogue';

let t: TestApp;
let cookie: string;
const A = DEMO_DEALER.id;
const base = `/api/dealers/${A}`;
const honda = CATALOGUE.find((m) => m.id === 'honda')!;
// The reporting clock (app.now), pinned just after midnight UTC: "an hour ago" is yesterday.
const NOW = new Date('2026-03-10T00:30:00Z');

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { now: () => NOW }));
});
afterAll(() => t.close());

const get = (url: string, c = cookie) => t.app.inject({ method: 'GET', url, headers: { cookie: c } });
const put = (payload: unknown, c = cookie) => t.app.inject({ method: 'PUT', url: `${base}/configs`, payload: payload as object, headers: { cookie: c } });

async function upload(files: Array<{ filename: string; data: Buffer }>) {
  const { body, contentType } = multipartBody(files);
  const res = await t.app.inject({ method: 'POST', url: `${base}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  return res.json().results as Array<{ ok: boolean; asset: { id: string } }>;
}

async function version() {
  const [row] = await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, A));
  return row!.v;
}

describe('dealer configs', () => {
  it('reads the editable configs, sizes and manufacturer', async () => {
    const res = await get(`${base}/configs`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.manufacturer).toEqual({ id: 'honda', name: honda.name });
    expect(body.modelMap).toEqual(honda.defaultModelMappings);
    expect(body.customUpsellLogic).toBe('manufacturer');
    expect(body.bannerSizes.srpHeaderDesktop).toEqual({ width: 1920, height: 300 });
  });

  it('saves every tab in one call and bumps the dealer version', async () => {
    const v0 = await version();
    const res = await put({
      modelMap: { civic: 'civic', 'civic hatchback': 'civic', accord: 'accord' },
      upsellMap: { civic: 'accord' },
      trimPatterns: { civic: ['lx', 'sport', 'touring'] },
      inventoryWeights: { civic: 9, accord: 3 },
      customUpsellLogic: 'custom',
      customUpsellRules: { civic: 'civic' },
      bannerSizes: {
        srpHeaderDesktop: { width: 1200, height: 250 },
        srpHeaderMobile: { width: 500, height: 400 },
        inlineDesktop: { width: 300, height: 500 },
        inlineMobile: { width: 300, height: 500 },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await version()).toBe(v0 + 1);
    const saved = (await get(`${base}/configs`)).json();
    expect(saved).toMatchObject({
      modelMap: { civic: 'civic', 'civic hatchback': 'civic', accord: 'accord' },
      inventoryWeights: { civic: 9, accord: 3 },
      customUpsellLogic: 'custom',
      customUpsellRules: { civic: 'civic' },
      bannerSizes: { srpHeaderDesktop: { width: 1200, height: 250 } },
    });
    // The dealer record (used by the Asset Manager) shows the same sizes.
    const dealer = (await get(base)).json().dealer;
    expect(dealer.assetStorage.bannerSizes.inlineMobile).toEqual({ width: 300, height: 500 });
  });

  it('is all-or-nothing: an invalid size in one tab leaves every saved value unchanged', async () => {
    const before = (await get(`${base}/configs`)).json();
    const v0 = await version();
    const res = await put({
      modelMap: { pilot: 'pilot' },
      inventoryWeights: { pilot: 10 },
      customUpsellLogic: 'manufacturer',
      bannerSizes: { ...before.bannerSizes, srpHeaderDesktop: { width: 50, height: 300 } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID' });
    expect(res.json().error.message).toMatch(/srpHeaderDesktop width must be 100-3000/);
    // The same problem for a program: the field's path, zod's issue code and the user's words.
    expect(res.json().error.fields).toEqual([{ path: 'bannerSizes.srpHeaderDesktop.width', code: 'too_small', message: 'Must be at least 100' }]);
    expect((await get(`${base}/configs`)).json()).toEqual(before);
    expect(await version()).toBe(v0);
  });

  it('refuses weights outside 1..10, empty keys and unknown fields', async () => {
    expect((await put({ inventoryWeights: { civic: 11 } })).statusCode).toBe(400);
    expect((await put({ inventoryWeights: { civic: 0 } })).statusCode).toBe(400);
    expect((await put({ modelMap: { '': 'civic' } })).statusCode).toBe(400);
    expect((await put({ customUpsellLogic: 'random' })).statusCode).toBe(400);
    expect((await put({ status: 'inactive' })).statusCode).toBe(400);
    expect((await put({})).statusCode).toBe(400);
  });

  it('refuses a viewer with 403 and changes nothing', async () => {
    const viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
    const before = (await get(`${base}/configs`, viewer)).json();
    const res = await put({ inventoryWeights: { civic: 2 } }, viewer);
    expect(res.statusCode).toBe(403);
    expect((await get(`${base}/configs`)).json()).toEqual(before);
  });

  it("returns the manufacturer's defaults for Reset without storing them", async () => {
    const before = (await get(`${base}/configs`)).json();
    const res = await get(`${base}/configs/defaults`);
    expect(res.statusCode).toBe(200);
    const d = res.json();
    expect(d.modelMap).toEqual(honda.defaultModelMappings);
    expect(d.upsellMap).toEqual(honda.defaultUpsellRules);
    expect(d.trimPatterns).toEqual(honda.defaultTrimPatterns);
    expect(Object.values(d.inventoryWeights).every((w) => w === 5)).toBe(true);
    expect(Object.keys(d.inventoryWeights).sort()).toEqual([...new Set(Object.values(honda.defaultModelMappings))].sort());
    expect(d.bannerSizes).toEqual({
      srpHeaderDesktop: { width: 1920, height: 300 },
      srpHeaderMobile: { width: 600, height: 500 },
      inlineDesktop: { width: 350, height: 564 },
      inlineMobile: { width: 350, height: 564 },
    });
    expect((await get(`${base}/configs`)).json()).toEqual(before);
    // Saving the defaults restores them.
    expect((await put(d)).statusCode).toBe(200);
    expect((await get(`${base}/configs`)).json()).toMatchObject(d);
  });
});

describe('upsell rules per strategy', () => {
  it('reports each strategy rule set and the active one; inventory is empty without data', async () => {
    await put({ customUpsellLogic: 'manufacturer', upsellMap: { civic: 'accord' }, customUpsellRules: { civic: 'pilot' } });
    const r = (await get(`${base}/upsell-rules`)).json();
    expect(r.strategy).toBe('manufacturer');
    expect(r.rules).toEqual({ manufacturer: { civic: 'accord' }, inventory: {}, custom: { civic: 'pilot' } });
    expect(r.active).toEqual({ civic: 'accord' });
    expect(r.manufacturerDefaults).toEqual(honda.defaultUpsellRules);
    expect(r.inventory).toBeNull();
  });

  it('reads inventory-optimised rules from dealer_inventory for the inventory strategy, and delivery and preview follow them', async () => {
    await put({ customUpsellLogic: 'inventory' });
    // Rules written directly (a save regenerates them from the stored breakdown, empty here).
    await t.database.db.insert(dealerInventory).values({
      dealerId: A,
      data: { totalUnits: 12, modelCount: 2, agedUnits: 3, avgDaysOnLot: 41.5, lastUpdated: '2025-06-01T00:00:00.000Z', modelBreakdown: {} },
      upsellRules: { civic: 'hr-v' },
      source: 'manual',
    });
    t.app.dealerSites.forget(A); // the database bumped the version (migration 0007)
    const r = (await get(`${base}/upsell-rules`)).json();
    expect(r.active).toEqual({ civic: 'hr-v' });
    expect(r.inventory).toMatchObject({ totalUnits: 12, modelCount: 2, agedUnits: 3, avgDaysOnLot: 41.5 });
    const p = (await get(`${base}/preview?model=civic&variant=desktop`)).json();
    expect(p.slots.find((s: { slot: string }) => s.slot === 'upsell')).toMatchObject({ model: 'HR-V', modelKey: 'hrv' });
    await put({ customUpsellLogic: 'custom' });
    const p2 = (await get(`${base}/preview?model=civic`)).json();
    expect(p2.slots.find((s: { slot: string }) => s.slot === 'upsell')).toMatchObject({ model: 'Pilot', modelKey: 'pilot' });
    await put({ customUpsellLogic: 'manufacturer' });
  });
});

describe('inventory weights', () => {
  it('a higher-weighted candidate becomes the upsell target in Preview, the image endpoint and the embed script alike', async () => {
    const upsellOfCrv = async () => {
      const p = (await get(`${base}/preview?model=CR-V`)).json();
      const slot = p.slots.find((s: { slot: string }) => s.slot === 'upsell');
      const img = await t.app.inject({ method: 'GET', url: `/api/scripts/${A}/asset?model=crv&type=upsell` });
      const config = embeddedConfig((await t.app.inject({ method: 'GET', url: `/scripts/dc-banners-${A}.js` })).body);
      return { preview: slot.modelKey, image: img.headers['x-banner-model'], script: planOf(config, 'CR-V')![1] };
    };
    const weights = (await get(`${base}/configs`)).json().inventoryWeights as Record<string, number>;
    expect(await upsellOfCrv()).toEqual({ preview: 'pilot', image: 'pilot', script: 'Pilot' }); // the Honda rule cr-v -> pilot
    expect((await put({ inventoryWeights: { ...weights, passport: 8 } })).statusCode).toBe(200);
    expect(await upsellOfCrv()).toEqual({ preview: 'passport', image: 'passport', script: 'Passport' });
    expect((await put({ inventoryWeights: { ...weights, pilot: 2 } })).statusCode).toBe(200); // Low Priority rule target
    expect(await upsellOfCrv()).toEqual({ preview: 'passport', image: 'passport', script: 'Passport' });
    await put({ inventoryWeights: weights });
  });
});

describe('banner preview, asset toggle and Free up space', () => {
  let olderHeader = '';
  let newerHeader = '';

  it('shows per slot the asset the delivery endpoint serves, or Missing', async () => {
    const [first] = await upload([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    olderHeader = first!.asset.id;
    const res = await get(`${base}/preview?model=Civic&variant=desktop`);
    expect(res.statusCode).toBe(200);
    const { slots } = res.json();
    expect(slots.map((s: { slot: string; status: string }) => [s.slot, s.status])).toEqual([
      ['header', 'found'],
      ['primary', 'mismatch'], // spec 02 §4 step 5: the first asset of the model, of another shape
      ['upsell', 'Missing'],
    ]);
    expect(slots[1]).toMatchObject({ creative: { width: 1920, height: 300 }, width: 350, height: 564 });
    expect(slots[0]).toMatchObject({ assetId: olderHeader, assetName: 'new_2025_honda_civic_sport_1920x300.jpg', width: 1920, height: 300 });
    expect(slots[2]).toMatchObject({ model: 'Accord', modelKey: 'accord' });
    const img = await t.app.inject({ method: 'GET', url: slots[0].imageUrl });
    expect(img.headers['x-banner-source']).toBe('asset');
    const ph = await t.app.inject({ method: 'GET', url: slots[2].imageUrl });
    expect(ph.headers['content-type']).toMatch(/image\/svg\+xml/);
  });

  it('uses the device size (mobile)', async () => {
    const { slots } = (await get(`${base}/preview?model=civic&variant=mobile`)).json();
    expect(slots[0]).toMatchObject({ width: 600, height: 500, status: 'mismatch', creative: { width: 1920, height: 300 } });
    expect(slots[1]).toMatchObject({ width: 350, height: 564 });
  });

  it('refuses a preview without a model', async () => {
    expect((await get(`${base}/preview?model=`)).statusCode).toBe(400);
  });

  it('toggles an asset inactive (no longer chosen) and active again, bumping the version', async () => {
    const v0 = await version();
    const off = await t.app.inject({ method: 'PATCH', url: `${base}/assets/${olderHeader}`, payload: { isActive: false }, headers: { cookie } });
    expect(off.statusCode).toBe(200);
    expect(off.json().asset.isActive).toBe(false);
    expect(await version()).toBe(v0 + 1);
    expect((await get(`${base}/preview?model=civic`)).json().slots[0].status).toBe('Missing');
    const on = await t.app.inject({ method: 'PATCH', url: `${base}/assets/${olderHeader}`, payload: { isActive: true }, headers: { cookie } });
    expect(on.json().asset.isActive).toBe(true);
    expect((await get(`${base}/preview?model=civic`)).json().slots[0].status).toBe('found');
    const bad = await t.app.inject({ method: 'PATCH', url: `${base}/assets/${olderHeader}`, payload: { isActive: 'no' }, headers: { cookie } });
    expect(bad.statusCode).toBe(400);
  });

  it('lists the older switched-off assets of a model, trim, slot and size it would remove and deletes only confirmed ones', async () => {
    // Another trim is another group: nothing offered for it.
    await upload([{ filename: 'new_2025_honda_civic_touring_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#00cc00') }]);
    expect((await get(`${base}/assets/cleanup`)).json().groups).toEqual([]);
    const [second] = await upload([{ filename: 'new_2025_honda_civic_sport_spring_1920x300.jpg', data: await makeBanner(1920, 300, 'jpeg', '#0000cc') }]);
    newerHeader = second!.asset.id;
    // Both live: they rotate (A/B), so nothing is offered until the older one is switched off.
    expect((await get(`${base}/assets/cleanup`)).json().groups).toEqual([]);
    const off = await t.app.inject({ method: 'PATCH', url: `${base}/assets/${olderHeader}`, payload: { isActive: false }, headers: { cookie } });
    expect(off.statusCode).toBe(200);
    const plan = (await get(`${base}/assets/cleanup`)).json();
    expect(plan.groups).toHaveLength(1);
    expect(plan.groups[0]).toMatchObject({ model: 'Civic', trim: 'Sport', size: '1920x300', keep: { id: newerHeader } });
    expect(plan.groups[0].remove.map((a: { id: string }) => a.id)).toEqual([olderHeader]);
    expect(plan.freedBytes).toBeGreaterThan(0);
    // Listing deleted nothing.
    expect((await t.database.db.select().from(assets).where(eq(assets.id, olderHeader))).length).toBe(1);
    // The newest one is not in the plan, so it survives even when asked for.
    const res = await t.app.inject({
      method: 'POST',
      url: `${base}/assets/cleanup`,
      payload: { assetIds: [olderHeader, newerHeader] },
      headers: { cookie },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ deleted: 1 });
    const left = (await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.dealerId, A))).map((r) => r.id);
    expect(left).toContain(newerHeader);
    expect(left).not.toContain(olderHeader);
    expect((await get(`${base}/assets/cleanup`)).json()).toEqual({ groups: [], freedBytes: 0 });
  });
});

describe('dashboard trend', () => {
  it("compares the last 7 days with the 7 before, null ('--') without previous data", async () => {
    const first = (await get(`${base}/stats/trend?days=7`)).json();
    expect(first.trend).toEqual({ impressions: null, clicks: null, ctr: null, conversions: null });
    const hourAgo = new Date('2026-03-09T23:00:00Z');
    const tenDaysAgo = new Date(hourAgo.getTime() - 10 * 86_400_000);
    await t.database.db.insert(eventRollupsHourly).values([
      { dealerId: A, hour: hourAgo, model: 'civic', slotType: 'header', impressions: 150, clicks: 6, conversions: 3 },
      { dealerId: A, hour: tenDaysAgo, model: 'civic', slotType: 'header', impressions: 100, clicks: 2, conversions: 2 },
    ]);
    const res = await get(`${base}/stats/trend?days=7`);
    expect(res.statusCode).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({ impressions: 150, clicks: 6, conversions: 3, previous: { impressions: 100, clicks: 2, conversions: 2 } });
    // Today (UTC) and the 6 days before, up to the end of the current hour (domain/periods.ts).
    expect({ days: s.days, from: s.from, to: s.to }).toEqual({ days: 7, from: '2026-03-04T00:00:00.000Z', to: '2026-03-10T01:00:00.000Z' });
    expect(s.trend.impressions).toBeCloseTo(50);
    expect(s.trend.clicks).toBeCloseTo(200);
    expect(s.trend.ctr).toBeCloseTo(100); // 4 % vs 2 %
    expect(s.trend.conversions).toBeCloseTo(50); // the dashboard's Conversions card
  });
});
