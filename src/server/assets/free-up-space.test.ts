/**
 * 'Free up space' (DECISIONS 12): groups by model, trim, slot and size; keeps the asset
 * delivery shows first (the newest live one); offers only assets that can never show again (issue
 * 15: live assets of a group rotate, so an older live one is not offered); deletes only the
 * confirmed ids still in the plan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { CATALOGUE } from '../db/seed-catalogue';
import { assets, dealers } from '../db/schema';
import { newDealerRow } from '../dealers/service';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

let t: TestApp;
let manager: string;
let viewer: string;
const A = DEMO_DEALER.id;
const B = 'dealer-b-free-up';
const base = `/api/dealers/${A}/assets`;

/** Uploads one banner and dates it `minutesAgo` back, so the order of uploads is unambiguous. */
async function upload(filename: string, width: number, height: number, minutesAgo: number, opts: { dealerId?: string; cookie?: string; color?: string } = {}) {
  const { body, contentType } = multipartBody([{ filename, data: await makeBanner(width, height, 'jpeg', opts.color) }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/dealers/${opts.dealerId ?? A}/assets`,
    payload: body,
    headers: { cookie: opts.cookie ?? manager, 'content-type': contentType },
  });
  const [r] = res.json().results as Array<{ ok: boolean; asset: { id: string } }>;
  expect(r!.ok).toBe(true);
  await t.database.db.update(assets).set({ createdAt: new Date(Date.now() - minutesAgo * 60_000) }).where(eq(assets.id, r!.asset.id));
  return r!.asset.id;
}

interface PlanAsset {
  id: string;
  name: string;
  createdAt: string;
  sizeBytes: number;
  isActive: boolean;
}
interface Plan {
  groups: Array<{ model: string; modelKey: string; trim: string; slot: string; size: string; keep: PlanAsset; remove: PlanAsset[] }>;
  freedBytes: number;
}

const plan = async (cookie = manager): Promise<Plan> => {
  const res = await t.app.inject({ method: 'GET', url: `${base}/cleanup`, headers: { cookie } });
  expect(res.statusCode).toBe(200);
  return res.json();
};
const confirm = (assetIds: string[], cookie = manager) => t.app.inject({ method: 'POST', url: `${base}/cleanup`, payload: { assetIds }, headers: { cookie } });
const setActive = async (id: string, isActive: boolean) =>
  expect((await t.app.inject({ method: 'PATCH', url: `${base}/${id}`, payload: { isActive }, headers: { cookie: manager } })).statusCode).toBe(200);
const stored = async (id: string) => (await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.id, id))).length === 1;
const version = async () => (await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, A)))[0]!.v;
/** The asset the preview (the delivery choice) shows in the desktop header slot of a model and trim. */
const shownHeader = async (model: string, trim: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/preview?model=${model}&trim=${trim}&variant=desktop`, headers: { cookie: manager } });
  return (res.json().slots as Array<{ slot: string; assetId?: string | null }>).find((s) => s.slot === 'header')?.assetId;
};

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager'));
  viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
  const honda = CATALOGUE.find((m) => m.id === 'honda')!;
  await t.database.db
    .insert(dealers)
    .values(newDealerRow({ id: B, name: 'Dealer B', manufacturer: 'honda', websiteUrl: 'https://dealer-b.example', provider: 'mxs', status: 'active' }, honda));
});
afterAll(() => t.close());

describe("'Free up space'", () => {
  let sportOld = '';
  let sportNew = '';
  let lx = '';

  it('offers nothing for a Civic Sport and a Civic LX banner of the same size (different trims)', async () => {
    sportOld = await upload('new_2025_honda_civic_sport_1920x300.jpg', 1920, 300, 60);
    lx = await upload('new_2025_honda_civic_lx_1920x300.jpg', 1920, 300, 50);
    expect(await plan()).toEqual({ groups: [], freedBytes: 0 });
  });

  it('offers the older of two Civic Sport 1920x300 banners once it is switched off, and keeps the newer, the one delivery shows', async () => {
    sportNew = await upload('new_2025_honda_civic_sport_spring_1920x300.jpg', 1920, 300, 40, { color: '#0000cc' });
    expect(await shownHeader('civic', 'sport')).toBe(sportNew);
    // Both live: they rotate (A/B), so neither is offered.
    expect(await plan()).toEqual({ groups: [], freedBytes: 0 });
    await setActive(sportOld, false);
    const p = await plan();
    expect(p.groups).toHaveLength(1);
    const [g] = p.groups;
    expect(g).toMatchObject({ model: 'Civic', modelKey: 'civic', trim: 'Sport', slot: 'header', size: '1920x300' });
    expect(g!.keep).toMatchObject({ id: sportNew, name: 'new_2025_honda_civic_sport_spring_1920x300.jpg', isActive: true });
    expect(Object.keys(g!.keep).sort()).toEqual(['createdAt', 'endsAt', 'id', 'isActive', 'name', 'sizeBytes']);
    expect(g!.remove.map((a) => a.id)).toEqual([sportOld]);
    expect(p.freedBytes).toBe(g!.remove[0]!.sizeBytes);
    expect(p.freedBytes).toBeGreaterThan(0);
    expect(await stored(sportOld)).toBe(true); // listing deletes nothing
  });

  it('keeps the active asset when the newest of the group is inactive', async () => {
    await setActive(sportOld, true);
    await setActive(sportNew, false);
    expect(await shownHeader('civic', 'sport')).toBe(sportOld);
    const [g] = (await plan()).groups;
    expect(g!.keep.id).toBe(sportOld);
    expect(g!.remove).toEqual([expect.objectContaining({ id: sportNew, isActive: false })]);
    await setActive(sportNew, true);
    await setActive(sportOld, false);
  });

  it('keeps the newest one when no asset of the group is active', async () => {
    for (const id of [sportOld, sportNew]) await t.database.db.update(assets).set({ isActive: false }).where(eq(assets.id, id));
    const [g] = (await plan()).groups;
    expect(g!.keep).toMatchObject({ id: sportNew, isActive: false });
    expect(g!.remove.map((a) => a.id)).toEqual([sportOld]);
    await t.database.db.update(assets).set({ isActive: true }).where(eq(assets.id, sportNew));
  });

  it('deletes only the ticked ids (unticked ones stay) and bumps the dealer version', async () => {
    const sportOlder = await upload('new_2025_honda_civic_sport_winter_1920x300.jpg', 1920, 300, 70, { color: '#00aa00' });
    const inlineOld = await upload('new_2025_honda_civic_sport_350x564.jpg', 350, 564, 30);
    for (const id of [sportOlder, inlineOld]) await setActive(id, false);
    const inlineNew = await upload('new_2025_honda_civic_sport_spring_350x564.jpg', 350, 564, 20, { color: '#0000cc' });
    const p = await plan();
    expect(p.groups.map((g) => [g.slot, g.size, g.keep.id, g.remove.map((a) => a.id)])).toEqual([
      ['header', '1920x300', sportNew, [sportOld, sportOlder]],
      ['primary', '350x564', inlineNew, [inlineOld]],
    ]);
    const v0 = await version();
    const res = await confirm([sportOld, inlineOld]); // sportOlder unticked
    expect(res.statusCode).toBe(200);
    const oldSize = p.groups[0]!.remove[0]!.sizeBytes + p.groups[1]!.remove[0]!.sizeBytes;
    expect(res.json()).toEqual({ deleted: 2, freedBytes: oldSize, skipped: [] });
    expect(await version()).toBe(v0 + 1);
    expect(await stored(sportOld)).toBe(false);
    expect(await stored(inlineOld)).toBe(false);
    expect(await stored(sportOlder)).toBe(true);
    expect((await plan()).groups.map((g) => [g.keep.id, g.remove.map((a) => a.id)])).toEqual([[sportNew, [sportOlder]]]);
    expect(await shownHeader('civic', 'sport')).toBe(sportNew);
    expect(await shownHeader('civic', 'lx')).toBe(lx);
  });

  it("skips a kept id, an unknown id and another dealer's id; deletes nothing and keeps the version when nothing is removable", async () => {
    const bManager = await t.userCookie('dealer-manager', B);
    const bOld = await upload('new_2025_honda_civic_sport_1920x300.jpg', 1920, 300, 90, { dealerId: B, cookie: bManager });
    await upload('new_2025_honda_civic_sport_spring_1920x300.jpg', 1920, 300, 10, { dealerId: B, cookie: bManager });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const v0 = await version();
    const res = await confirm([sportNew, lx, unknown, bOld, 'not-a-uuid']);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: 0, freedBytes: 0, skipped: [sportNew, lx, unknown, bOld, 'not-a-uuid'] });
    expect(await version()).toBe(v0);
    for (const id of [sportNew, lx, bOld]) expect(await stored(id)).toBe(true);
    // A mix: the removable one goes, the kept one is reported.
    const [g] = (await plan()).groups;
    const mixed = await confirm([g!.remove[0]!.id, sportNew, g!.remove[0]!.id]);
    expect(mixed.json()).toMatchObject({ deleted: 1, skipped: [sportNew] });
    expect(await stored(sportNew)).toBe(true);
    expect(await plan()).toEqual({ groups: [], freedBytes: 0 });
  });

  it('refuses an empty confirmation', async () => {
    expect((await confirm([])).statusCode).toBe(400);
  });

  it('lets a viewer see the plan but not delete (403), and keeps other dealers out', async () => {
    await setActive(await upload('new_2025_honda_accord_se_350x564.jpg', 350, 564, 15), false);
    const accordNew = await upload('new_2025_honda_accord_se_spring_350x564.jpg', 350, 564, 5);
    const seen = await plan(viewer);
    expect(seen.groups.map((g) => [g.model, g.trim, g.keep.id])).toEqual([['Accord', 'SE', accordNew]]);
    const ids = seen.groups[0]!.remove.map((a) => a.id);
    expect((await confirm(ids, viewer)).statusCode).toBe(403);
    expect(await stored(ids[0]!)).toBe(true);
    const bManager = await t.userCookie('dealer-manager', B);
    expect((await t.app.inject({ method: 'GET', url: `${base}/cleanup`, headers: { cookie: bManager } })).statusCode).toBe(403);
    expect((await confirm(ids, bManager)).statusCode).toBe(403);
    expect(await stored(ids[0]!)).toBe(true);
  });
});
