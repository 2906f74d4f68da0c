/**
 * Promotion schedule: an asset's optional [startsAt, endsAt) window, entered in the
 * dealer's time zone and stored in UTC, decides whether delivery, Preview and Free up space treat
 * it as live. The app's clock is injected (createTestApp `now`), so the tests move time without
 * sleeping; moving it writes nothing, so the delivery caches must expire at the window boundary
 * themselves. Also: the window's validation errors, the dealer's time-zone setting, and the Asset
 * Manager's bulk actions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { assets, dealers } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { SERVER_TIME_ZONE } from '../dealers/service';

const D = DEMO_DEALER.id;
const base = `/api/dealers/${D}/assets`;
/** The injected clock: every request of the app reads it (app.now). */
let clock = new Date('2026-06-15T12:00:00Z');
const setClock = (iso: string) => void (clock = new Date(iso));

let t: TestApp;
let manager: string;
let admin: string;

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager', { now: () => clock }));
  admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
});
afterAll(() => t.close());

const send = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, cookie = manager) =>
  t.app.inject({ method, url, payload: payload as never, headers: { cookie } });

/** Uploads one banner (with optional window fields) and returns the request's answer. */
async function upload(filename: string, width: number, height: number, fields: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const { body, contentType } = multipartBody([{ filename, data: await makeBanner(width, height) }], fields);
  return t.app.inject({ method: 'POST', url: base, payload: body, headers: { cookie: manager, 'content-type': contentType } });
}
async function uploadOk(filename: string, width: number, height: number, fields: Record<string, string> = {}): Promise<{ id: string; startsAt: string | null; endsAt: string | null; schedule: string }> {
  const res = await upload(filename, width, height, fields);
  const [r] = res.json().results;
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.asset;
}

/** What the public image endpoint answers for a model's desktop slot now: source, chosen asset (via Preview) and Cache-Control. */
async function shown(model: string, type: 'header' | 'primary' = 'header') {
  const img = await t.app.inject({ method: 'GET', url: `/api/scripts/${D}/asset?model=${model}&type=${type}&variant=desktop&v=1` });
  const preview = await t.app.inject({ method: 'GET', url: `/api/dealers/${D}/preview?model=${model}&variant=desktop`, headers: { cookie: manager } });
  const slot = (preview.json().slots as Array<{ slot: string; assetId: string | null }>).find((s) => s.slot === type)!;
  return { source: img.headers['x-banner-source'], cacheControl: img.headers['cache-control'], assetId: slot.assetId };
}

const version = async () => (await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, D)))[0]!.v;

describe('a promotion window: before, during, after (delivery, Preview, the asset list)', () => {
  it('shows the asset only inside [startsAt, endsAt), with no write at the boundaries', async () => {
    setClock('2026-06-15T12:00:00Z');
    const promo = await uploadOk('new_2026_honda_pilot_elite_1920x300.jpg', 1920, 300, { startsAt: '2026-07-01T00:00:00Z', endsAt: '2026-07-08T00:00:00Z' });
    expect(promo).toMatchObject({ startsAt: '2026-07-01T00:00:00.000Z', endsAt: '2026-07-08T00:00:00.000Z', schedule: 'scheduled' });

    // Before: not chosen; the image answer may be cached, but never past the start.
    setClock('2026-06-30T23:59:50Z');
    const before = await shown('pilot');
    expect(before.assetId).toBeNull();
    expect(before.source).not.toBe('asset');
    expect(before.cacheControl).toBe('public, max-age=10');
    const v = await version();

    // At the start (inclusive): the same app, its choice cache warm, no write in between.
    setClock('2026-07-01T00:00:00Z');
    const during = await shown('pilot');
    expect(during).toMatchObject({ source: 'asset', assetId: promo.id });
    // Cacheable until the end (a week away): the usual 5 minutes plus a day stale-while-revalidate.
    expect(during.cacheControl).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(await version()).toBe(v); // time passing wrote nothing
    const list = await t.app.inject({ method: 'GET', url: base, headers: { cookie: manager } });
    expect(list.json().assets.find((a: { id: string }) => a.id === promo.id).schedule).toBe('live');

    // One second before the end: still shown; cached at most until the end.
    setClock('2026-07-07T23:59:59Z');
    expect(await shown('pilot')).toMatchObject({ source: 'asset', assetId: promo.id, cacheControl: 'public, max-age=1' });

    // At the end (exclusive): gone, and listed as expired.
    setClock('2026-07-08T00:00:00Z');
    const after = await shown('pilot');
    expect(after.assetId).toBeNull();
    expect(after.source).not.toBe('asset');
    const later = await t.app.inject({ method: 'GET', url: base, headers: { cookie: manager } });
    expect(later.json().assets.find((a: { id: string }) => a.id === promo.id).schedule).toBe('expired');
    expect(await version()).toBe(v);
  });

  it('lets a promotion override the evergreen banner only inside its window, then the evergreen returns', async () => {
    setClock('2026-06-15T12:00:00Z');
    const evergreen = await uploadOk('new_2026_honda_odyssey_touring_1920x300.jpg', 1920, 300);
    const promo = await uploadOk('new_2026_honda_odyssey_touring_holiday_1920x300.jpg', 1920, 300, { startsAt: '2026-11-27T00:00:00Z', endsAt: '2026-11-30T00:00:00Z' });
    expect((await shown('odyssey')).assetId).toBe(evergreen.id);
    setClock('2026-11-28T10:00:00Z');
    expect((await shown('odyssey')).assetId).toBe(promo.id);
    setClock('2026-12-01T00:00:00Z');
    expect((await shown('odyssey')).assetId).toBe(evergreen.id);
  });

  it('raises the dealer version when a window is set or cleared (migration 0007 asset trigger), and the change shows at once', async () => {
    setClock('2026-06-15T12:00:00Z');
    const a = await uploadOk('new_2026_honda_passport_trailsport_1920x300.jpg', 1920, 300);
    expect((await shown('passport')).assetId).toBe(a.id);
    const v0 = await version();
    const set = await send('PATCH', `${base}/${a.id}`, { startsAt: '2026-08-01T00:00:00Z' });
    expect(set.statusCode).toBe(200);
    expect(set.json().asset).toMatchObject({ startsAt: '2026-08-01T00:00:00.000Z', endsAt: null, schedule: 'scheduled' });
    expect(await version()).toBeGreaterThan(v0);
    expect((await shown('passport')).assetId).toBeNull();
    const v1 = await version();
    const cleared = await send('PATCH', `${base}/${a.id}`, { startsAt: null });
    expect(cleared.json().asset).toMatchObject({ startsAt: null, endsAt: null, schedule: 'live' });
    expect(await version()).toBeGreaterThan(v1);
    expect((await shown('passport')).assetId).toBe(a.id);
  });
});

describe("the dealer's time zone (local date-times in, UTC stored)", () => {
  it("defaults to the server's zone and is set by admins in Dealer Settings (IANA names only)", async () => {
    const dealer = await t.app.inject({ method: 'GET', url: `/api/dealers/${D}`, headers: { cookie: manager } });
    expect(dealer.json().dealer.timeZone).toBe(SERVER_TIME_ZONE);
    const bad = await send('PUT', `/api/admin/dealers/${D}/settings`, { timeZone: 'Mars/Olympus_Mons' }, admin);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toBe('timeZone: must be an IANA time zone such as America/New_York');
    const offset = await send('PUT', `/api/admin/dealers/${D}/settings`, { timeZone: '+05:00' }, admin);
    expect(offset.statusCode).toBe(400);
    const ok = await send('PUT', `/api/admin/dealers/${D}/settings`, { timeZone: 'America/New_York' }, admin);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().dealer.timeZone).toBe('America/New_York');
    // A dealer manager cannot change it (admin route).
    expect((await send('PUT', `/api/admin/dealers/${D}/settings`, { timeZone: 'UTC' })).statusCode).toBe(403);
  });

  it('reads a local end of "midnight" in New York as 04:00 UTC in summer and 05:00 UTC in winter, and in UTC as 00:00', async () => {
    await send('PUT', `/api/admin/dealers/${D}/settings`, { timeZone: 'America/New_York' }, admin);
    setClock('2026-07-04T12:00:00Z');
    const a = await uploadOk('new_2026_honda_civic_type-r_1920x300.jpg', 1920, 300, { startsAt: '2026-07-04T00:00', endsAt: '2026-07-05T00:00' });
    expect(a).toMatchObject({ startsAt: '2026-07-04T04:00:00.000Z', endsAt: '2026-07-05T04:00:00.000Z' });
    // Just after midnight UTC it is still the 4th of July in New York: live.
    setClock('2026-07-05T03:59:59Z');
    expect((await shown('civic')).assetId).toBe(a.id);
    setClock('2026-07-05T04:00:00Z');
    expect((await shown('civic')).assetId).not.toBe(a.id);

    const winter = await send('PATCH', `${base}/${a.id}`, { startsAt: '2026-12-31T00:00', endsAt: '2027-01-01T00:00' });
    expect(winter.json().asset).toMatchObject({ startsAt: '2026-12-31T05:00:00.000Z', endsAt: '2027-01-01T05:00:00.000Z' });

    // The same local text for a dealer in UTC ends at midnight UTC; an explicit offset is taken as given.
    await send('PUT', `/api/admin/dealers/${D}/settings`, { timeZone: 'UTC' }, admin);
    const utc = await send('PATCH', `${base}/${a.id}`, { startsAt: '2026-07-04T00:00', endsAt: '2026-07-05T00:00' });
    expect(utc.json().asset).toMatchObject({ startsAt: '2026-07-04T00:00:00.000Z', endsAt: '2026-07-05T00:00:00.000Z' });
    setClock('2026-07-05T00:00:00Z');
    expect((await shown('civic')).assetId).not.toBe(a.id);
    setClock('2026-07-04T23:59:59Z');
    expect((await shown('civic')).assetId).toBe(a.id);
    const offset = await send('PATCH', `${base}/${a.id}`, { endsAt: '2026-07-05T00:00:00-04:00' });
    expect(offset.json().asset.endsAt).toBe('2026-07-05T04:00:00.000Z');
    await send('PATCH', `${base}/${a.id}`, { startsAt: null, endsAt: null });
  });
});

describe('window validation (400 naming the field)', () => {
  let id: string;
  beforeAll(async () => {
    setClock('2026-06-15T12:00:00Z');
    id = (await uploadOk('new_2026_honda_hr-v_ex-l_350x564.jpg', 350, 564)).id;
  });

  it('refuses an end that is not after the start', async () => {
    const res = await send('PATCH', `${base}/${id}`, { startsAt: '2026-07-10T00:00:00Z', endsAt: '2026-07-01T00:00:00Z' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'INVALID', message: 'endsAt: must be after startsAt', fields: [{ path: 'endsAt', code: 'window_order', message: 'Must be after startsAt' }] });
    const equal = await send('PATCH', `${base}/${id}`, { startsAt: '2026-07-10T00:00:00Z', endsAt: '2026-07-10T00:00:00Z' });
    expect(equal.json().error.message).toBe('endsAt: must be after startsAt');
  });

  it('checks one field against the stored other one', async () => {
    expect((await send('PATCH', `${base}/${id}`, { startsAt: '2026-07-10T00:00:00Z' })).statusCode).toBe(200);
    const res = await send('PATCH', `${base}/${id}`, { endsAt: '2026-07-09T00:00:00Z' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('endsAt: must be after startsAt');
  });

  it('refuses text that is not a date-time, an impossible date, and an empty patch', async () => {
    const text = await send('PATCH', `${base}/${id}`, { startsAt: 'next tuesday' });
    expect(text.statusCode).toBe(400);
    expect(text.json().error.message).toMatch(/^startsAt: must be a date-time such as 2026-07-04T09:00/);
    const impossible = await send('PATCH', `${base}/${id}`, { endsAt: '2026-02-30T10:00' });
    expect(impossible.statusCode).toBe(400);
    expect(impossible.json().error.message).toMatch(/^endsAt: must be a date-time/);
    const empty = await send('PATCH', `${base}/${id}`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toBe('Nothing to change: send isActive, startsAt or endsAt');
  });

  it('refuses a whole upload with a bad window, storing nothing', async () => {
    const count = async () => (await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.dealerId, D))).length;
    const before = await count();
    const res = await upload('new_2026_honda_accord_sport_350x564.jpg', 350, 564, { startsAt: '2026-08-02T00:00', endsAt: '2026-08-01T00:00' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('endsAt: must be after startsAt');
    expect(await count()).toBe(before);
  });
});

describe('Free up space with windows (the kept asset is the live one; nothing that will still show is offered)', () => {
  it('offers an expired promotion, keeps the live evergreen, and never offers a scheduled one', async () => {
    setClock('2026-09-15T12:00:00Z');
    const evergreen = await uploadOk('new_2026_honda_ridgeline_rtl_1920x300.jpg', 1920, 300);
    await t.database.db.update(assets).set({ createdAt: new Date('2020-01-01T00:00:00Z') }).where(eq(assets.id, evergreen.id));
    const expired = await uploadOk('new_2026_honda_ridgeline_rtl_summer_1920x300.jpg', 1920, 300, { startsAt: '2026-07-01T00:00:00Z', endsAt: '2026-08-01T00:00:00Z' });
    const scheduled = await uploadOk('new_2026_honda_ridgeline_rtl_fall_1920x300.jpg', 1920, 300, { startsAt: '2026-10-01T00:00:00Z', endsAt: '2026-10-08T00:00:00Z' });
    const plan = await t.app.inject({ method: 'GET', url: `${base}/cleanup`, headers: { cookie: manager } });
    const group = (plan.json().groups as Array<{ modelKey: string; keep: { id: string }; remove: Array<{ id: string; endsAt: string | null }> }>).find((g) => g.modelKey === 'ridgeline')!;
    expect(group.keep.id).toBe(evergreen.id);
    expect(group.remove.map((a) => a.id)).toEqual([expired.id]);
    expect(group.remove[0]!.endsAt).toBe('2026-08-01T00:00:00.000Z');
    // Asking for the scheduled one anyway: skipped, not deleted.
    const res = await send('POST', `${base}/cleanup`, { assetIds: [scheduled.id, expired.id] });
    expect(res.json()).toMatchObject({ deleted: 1, skipped: [scheduled.id] });
  });
});

describe('bulk actions (Asset Manager select several)', () => {
  it('deactivates, activates and deletes the selected assets in one request; other ids are skipped', async () => {
    setClock('2026-06-15T12:00:00Z');
    const a = await uploadOk('new_2026_honda_prologue_elite_1920x300.jpg', 1920, 300);
    const b = await uploadOk('new_2026_honda_prologue_touring_1920x300.jpg', 1920, 300);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const v0 = await version();
    const off = await send('POST', `${base}/bulk`, { action: 'deactivate', assetIds: [a.id, b.id, unknown, 'not-an-id'] });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ action: 'deactivate', changed: 2, skipped: [unknown, 'not-an-id'] });
    expect(await version()).toBe(v0 + 1); // one statement, one bump
    expect((await shown('prologue')).assetId).toBeNull();
    expect((await send('POST', `${base}/bulk`, { action: 'activate', assetIds: [a.id] })).json().changed).toBe(1);
    expect((await shown('prologue')).assetId).toBe(a.id);
    const del = await send('POST', `${base}/bulk`, { action: 'delete', assetIds: [a.id, b.id] });
    expect(del.json()).toEqual({ action: 'delete', changed: 2, skipped: [] });
    expect((await shown('prologue')).assetId).toBeNull();
    const bad = await send('POST', `${base}/bulk`, { action: 'archive', assetIds: [] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^action: .*; assetIds: Choose at least one asset$/);
  });
});
