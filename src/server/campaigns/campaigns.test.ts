/**
 * Campaigns: a dealer's named promotion with a window in its time zone, models, slots and a mode,
 * drafted, published, paused, resumed and ended as a whole. Proven through the interfaces a dealer
 * and its site use: the campaign routes, uploads into a campaign, Preview and the coverage matrix
 * (now and "as of" a moment), and the public banner endpoint the embed script calls (which
 * creative each rotation bucket gets, X-Banner-Creative). The app's clock is injected
 * (createSignedInTestApp `now`): moving it writes nothing, so a window's start and end must take
 * effect by themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { assets, dealers } from '../db/schema';
import { CATALOGUE } from '../db/seed-catalogue';
import { newDealerRow } from '../dealers/service';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

const D = DEMO_DEALER.id;
const api = `/api/dealers/${D}`;
let clock = new Date('2026-11-01T12:00:00Z');
const setClock = (iso: string) => void (clock = new Date(iso));

let t: TestApp;
let manager: string;
let viewer: string;

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager', { now: () => clock }));
  viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
  // The dealer enters windows in New York time (UTC-5 in November).
  await t.database.db.update(dealers).set({ timeZone: 'America/New_York' }).where(eq(dealers.id, D));
}, 60_000);
afterAll(() => t.close());

const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, cookie = manager) =>
  t.app.inject({ method, url, payload: payload as never, headers: { cookie } });

/**
 * Uploads one banner (a colour of its own, so its bytes are new; 1920x300, a header banner, unless
 * `size` says otherwise) with optional text fields, to the demo dealer unless `to` names another; returns the request's answer.
 */
async function upload(filename: string, color: string, fields: Record<string, string> = {}, size = { width: 1920, height: 300 }, to: { dealerId: string; cookie: string } = { dealerId: D, cookie: '' }) {
  const { body, contentType } = multipartBody([{ filename, data: await makeBanner(size.width, size.height, 'jpeg', color) }], fields);
  return t.app.inject({ method: 'POST', url: `/api/dealers/${to.dealerId}/assets`, payload: body, headers: { cookie: to.cookie || manager, 'content-type': contentType } });
}
async function uploadOk(filename: string, color: string, fields: Record<string, string> = {}, size?: { width: number; height: number }, to?: { dealerId: string; cookie: string }): Promise<{ id: string; campaignId: string | null }> {
  const res = await upload(filename, color, fields, size, to);
  expect(res.statusCode, res.body).toBe(200);
  const [r] = res.json().results;
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.asset;
}

async function createCampaign(body: Record<string, unknown>) {
  const res = await send('POST', `${api}/campaigns`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaign as { id: string; status: string; state: string; startsAt: string; endsAt: string | null };
}
const act = (id: string, action: string) => send('POST', `${api}/campaigns/${id}/status`, { action });

/** The creative the public banner endpoint gives rotation buckets 0 and 1 of a model's desktop slot now. */
async function delivered(model: string, type: 'header' | 'primary' = 'header'): Promise<string[]> {
  const out: string[] = [];
  for (const r of [0, 1]) {
    const res = await t.app.inject({ method: 'GET', url: `/api/scripts/${D}/asset?model=${model}&type=${type}&variant=desktop&v=1&r=${r}` });
    expect(res.statusCode, res.body).toBeLessThan(400);
    out.push(String(res.headers['x-banner-creative']));
  }
  return out;
}

/** Preview's slot of a model on desktop, now or as of a date-time. */
async function previewSlot(model: string, slot: 'header' | 'primary', asOf?: string) {
  const res = await send('GET', `${api}/preview?model=${model}&variant=desktop${asOf ? `&asOf=${encodeURIComponent(asOf)}` : ''}`, undefined, viewer);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { asOf: string; slots: Array<{ slot: string; assetId: string | null; imageUrl: string; rotation: Array<{ assetId: string }> }> };
  return { asOf: body.asOf, ...body.slots.find((s) => s.slot === slot)! };
}

const version = async () => (await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, D)))[0]!.v;

describe('a takeover campaign', () => {
  it('shows nothing before its start, Preview as of its start shows it, takes over at the start and stops at the end', async () => {
    setClock('2026-11-01T12:00:00Z');
    const regular = await uploadOk('new_2026_honda_civic_sport_1920x300.jpg', '#2255aa');
    const c = await createCampaign({ name: 'Black Friday', mode: 'takeover', startsAt: '2026-11-27T00:00', endsAt: '2026-11-30T00:00', models: ['civic'], slots: ['header'] });
    // Entered in the dealer's time zone, stored in UTC.
    expect(c).toMatchObject({ status: 'draft', state: 'draft', startsAt: '2026-11-27T05:00:00.000Z', endsAt: '2026-11-30T05:00:00.000Z' });
    const promo = await uploadOk('new_2026_honda_civic_sport_blackfriday_1920x300.jpg', '#aa2222', { campaignId: c.id });
    expect(promo.campaignId).toBe(c.id);
    // Its window is the campaign's: the asset's own cannot be set.
    const own = await send('PATCH', `${api}/assets/${promo.id}`, { startsAt: '2026-11-02T00:00' });
    expect(own.statusCode).toBe(400);
    expect(own.json().error.fields).toEqual([expect.objectContaining({ path: 'startsAt' })]);

    // A draft's creatives are not live, not even inside its window.
    expect(await delivered('civic')).toEqual([regular.id, regular.id]);
    expect((await previewSlot('civic', 'header', '2026-11-28T10:00')).assetId).toBe(regular.id);

    const v0 = await version();
    const published = await act(c.id, 'publish');
    expect(published.json().campaign).toMatchObject({ status: 'published', state: 'scheduled' });
    expect(await version()).toBeGreaterThan(v0);

    // Published but before its start: the regular banner, in delivery and in Preview now.
    expect(await delivered('civic')).toEqual([regular.id, regular.id]);
    expect((await previewSlot('civic', 'header')).assetId).toBe(regular.id);

    // Preview and coverage as of its start (local time) show the campaign alone in its slot;
    // the slot it does not cover keeps the regular banner.
    const atStart = await previewSlot('civic', 'header', '2026-11-27T00:00');
    expect(atStart).toMatchObject({ asOf: '2026-11-27T05:00:00.000Z', assetId: promo.id });
    expect(atStart.rotation.map((a) => a.assetId)).toEqual([promo.id]);
    expect(atStart.imageUrl).toBe(`${api}/assets/${promo.id}/image`);
    expect((await previewSlot('civic', 'primary', '2026-11-27T00:00')).assetId).toBe(regular.id);
    const cov = await send('GET', `${api}/coverage?asOf=2026-11-27T00:00`, undefined, viewer);
    expect(cov.statusCode).toBe(200);
    const civic = (cov.json().models as Array<{ model: string; desktop: Array<{ slot: string; assetId: string | null }> }>).find((m) => m.model === 'civic')!;
    expect(civic.desktop.find((s) => s.slot === 'header')!.assetId).toBe(promo.id);
    const covNow = await send('GET', `${api}/coverage`, undefined, viewer);
    expect((covNow.json().models as typeof civic[]).find((m) => m.model === 'civic')!.desktop.find((s) => s.slot === 'header')!.assetId).toBe(regular.id);

    // At the start, with no write in between: every rotation bucket gets the campaign's creative.
    const v1 = await version();
    setClock('2026-11-27T05:00:00Z');
    expect(await delivered('civic')).toEqual([promo.id, promo.id]);
    expect((await send('GET', `${api}/campaigns`, undefined, viewer)).json().campaigns.find((x: { id: string }) => x.id === c.id).state).toBe('live');
    setClock('2026-11-30T04:59:59Z');
    expect(await delivered('civic')).toEqual([promo.id, promo.id]);
    // At its end (exclusive): the regular banner again.
    setClock('2026-11-30T05:00:00Z');
    expect(await delivered('civic')).toEqual([regular.id, regular.id]);
    expect(await version()).toBe(v1);
    expect((await send('GET', `${api}/campaigns`)).json().campaigns.find((x: { id: string }) => x.id === c.id).state).toBe('ended');
  });

  it('pauses, resumes and ends now as a whole, each change seen at once', async () => {
    setClock('2026-12-01T12:00:00Z');
    const regular = await uploadOk('new_2026_honda_hr-v_sport_1920x300.jpg', '#225522');
    const c = await createCampaign({ name: 'Year end', mode: 'takeover', startsAt: '2026-12-01T00:00', endsAt: '2027-01-01T00:00', models: [], slots: [] });
    const promo = await uploadOk('new_2026_honda_hr-v_sport_yearend_1920x300.jpg', '#552255', { campaignId: c.id });
    expect((await act(c.id, 'publish')).json().campaign.state).toBe('live');
    expect(await delivered('hr-v')).toEqual([promo.id, promo.id]);

    const paused = await act(c.id, 'pause');
    expect(paused.json().campaign).toMatchObject({ status: 'paused', state: 'paused' });
    expect(await delivered('hr-v')).toEqual([regular.id, regular.id]);
    expect((await act(c.id, 'pause')).statusCode).toBe(409);

    expect((await act(c.id, 'resume')).json().campaign.state).toBe('live');
    expect(await delivered('hr-v')).toEqual([promo.id, promo.id]);

    const ended = await act(c.id, 'end');
    expect(ended.json().campaign).toMatchObject({ status: 'ended', state: 'ended', endsAt: '2026-12-01T12:00:00.000Z' });
    expect(await delivered('hr-v')).toEqual([regular.id, regular.id]);
    // An ended campaign is not changed again, and takes no more uploads.
    expect((await send('PATCH', `${api}/campaigns/${c.id}`, { name: 'Again' })).statusCode).toBe(409);
    const late = await upload('new_2026_honda_hr-v_ex-l_1920x300.jpg', '#123456', { campaignId: c.id });
    expect(late.statusCode).toBe(400);
    expect(late.json().error.fields).toEqual([expect.objectContaining({ path: 'campaignId' })]);

    // Deleting it deletes its creatives.
    expect((await send('DELETE', `${api}/campaigns/${c.id}`)).statusCode).toBe(204);
    expect(await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.id, promo.id))).toEqual([]);
  });
});

describe('a rotate campaign', () => {
  it('joins the regular rotation: the buckets split between its creative and the regular one', async () => {
    setClock('2027-02-01T12:00:00Z');
    const regular = await uploadOk('new_2026_honda_accord_se_1920x300.jpg', '#333399');
    const c = await createCampaign({ name: 'Presidents Day', mode: 'rotate', startsAt: '2027-02-10T00:00', endsAt: '2027-02-20T00:00', models: ['accord'] });
    const promo = await uploadOk('new_2026_honda_accord_se_presidents_1920x300.jpg', '#993333', { campaignId: c.id });
    await act(c.id, 'publish');
    expect(await delivered('accord')).toEqual([regular.id, regular.id]);
    setClock('2027-02-15T12:00:00Z');
    expect((await delivered('accord')).sort()).toEqual([promo.id, regular.id].sort());
    expect((await previewSlot('accord', 'header')).rotation.map((a) => a.assetId).sort()).toEqual([promo.id, regular.id].sort());
  });
});

describe("a campaign's existing assets", () => {
  const attach = (id: string, body: unknown, cookie = manager) => send('POST', `${api}/campaigns/${id}/assets`, body, cookie);
  const assetCampaign = async (id: string) => ((await send('GET', `${api}/assets`, undefined, viewer)).json().assets as Array<{ id: string; campaignId: string | null }>).find((a) => a.id === id)?.campaignId;

  it('attaches an asset of the dealer, which then shows exactly as an uploaded creative, and detaches it again', async () => {
    setClock('2027-05-01T12:00:00Z');
    const regular = await uploadOk('new_2026_honda_cr-v_ex_1920x300.jpg', '#113355');
    const existing = await uploadOk('new_2026_honda_cr-v_ex_memorial_1920x300.jpg', '#551133');
    // Both standalone, same size and trim: the slot rotates them.
    expect((await delivered('cr-v')).sort()).toEqual([existing.id, regular.id].sort());
    const c = await createCampaign({ name: 'Memorial Day', mode: 'takeover', startsAt: '2027-05-20T00:00', endsAt: '2027-06-01T00:00', models: ['CR-V'], slots: ['header'] });

    const v0 = await version();
    const res = await attach(c.id, { attach: [existing.id] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().campaign).toMatchObject({ id: c.id, assetCount: 1 });
    expect(await version()).toBeGreaterThan(v0);
    expect(await assetCampaign(existing.id)).toBe(c.id);
    // Attaching it again changes nothing.
    expect((await attach(c.id, { attach: [existing.id] })).json().campaign.assetCount).toBe(1);

    // Now one of a draft campaign's creatives: it no longer shows on its own.
    expect(await delivered('cr-v')).toEqual([regular.id, regular.id]);
    await act(c.id, 'publish');
    expect((await previewSlot('cr-v', 'header', '2027-05-21T00:00')).rotation.map((a) => a.assetId)).toEqual([existing.id]);
    setClock('2027-05-21T12:00:00Z');
    // Inside the window, the takeover serves it alone, in delivery, Preview and coverage.
    expect(await delivered('cr-v')).toEqual([existing.id, existing.id]);
    expect((await previewSlot('cr-v', 'header')).assetId).toBe(existing.id);
    const cov = (await send('GET', `${api}/coverage`, undefined, viewer)).json().models as Array<{ model: string; desktop: Array<{ slot: string; assetId: string | null }> }>;
    expect(cov.find((m) => m.model === 'crv')!.desktop.find((s) => s.slot === 'header')!.assetId).toBe(existing.id);

    // Detached: back to its own (open) schedule beside the regular banner.
    const off = await attach(c.id, { detach: [existing.id] });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().campaign.assetCount).toBe(0);
    expect(await assetCampaign(existing.id)).toBeNull();
    expect((await delivered('cr-v')).sort()).toEqual([existing.id, regular.id].sort());
    // Detaching what the campaign does not have names the field.
    const again = await attach(c.id, { detach: [existing.id] });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.fields).toEqual([expect.objectContaining({ path: 'detach.0' })]);
  });

  it("refuses a viewer (403), another dealer's asset (404) and its staff (403), a misfit (400 naming the field) and another campaign's creative (409)", async () => {
    setClock('2027-06-10T12:00:00Z');
    const c = await createCampaign({ name: 'Summer', mode: 'rotate', startsAt: '2027-06-15T00:00', models: ['odyssey'], slots: ['header'] });
    const header = await uploadOk('new_2026_honda_odyssey_ex-l_1920x300.jpg', '#224466');
    const inline = await uploadOk('new_2026_honda_odyssey_ex-l_350x564.jpg', '#446622', {}, { width: 350, height: 564 });
    const otherModel = await uploadOk('new_2026_honda_pilot_ex-l_1920x300.jpg', '#662244');

    const v0 = await version();
    expect((await attach(c.id, { attach: [header.id] }, viewer)).statusCode).toBe(403);
    // The inline creative fits neither of the campaign's slots; the Pilot creative not its models.
    const slot = await attach(c.id, { attach: [header.id, inline.id] });
    expect(slot.statusCode).toBe(400);
    expect(slot.json().error.fields).toEqual([expect.objectContaining({ path: 'attach.1', code: 'campaign_misfit' })]);
    expect(slot.json().error.message).toMatch(/slots/);
    const model = await attach(c.id, { attach: [otherModel.id] });
    expect(model.statusCode).toBe(400);
    expect(model.json().error.fields).toEqual([expect.objectContaining({ path: 'attach.0' })]);
    // The refused request wrote nothing: not even the asset that fitted.
    expect(await assetCampaign(header.id)).toBeNull();
    expect(await version()).toBe(v0);

    // Another dealer's asset is not found here, and that dealer's manager is kept out of this campaign.
    const B = 'dealer-b-campaigns';
    await t.database.db
      .insert(dealers)
      .values(newDealerRow({ id: B, name: 'Dealer B', manufacturer: 'honda', websiteUrl: 'https://dealer-b.example', provider: 'mxs', status: 'active' }, CATALOGUE.find((m) => m.id === 'honda')!));
    const bManager = await t.userCookie('dealer-manager', B);
    const theirs = await uploadOk('new_2026_honda_odyssey_elite_1920x300.jpg', '#246824', {}, undefined, { dealerId: B, cookie: bManager });
    const foreign = await attach(c.id, { attach: [theirs.id] });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.message).toBe('Asset not found');
    expect((await attach(c.id, { attach: [header.id] }, bManager)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: `/api/dealers/${B}/campaigns/${c.id}/assets`, payload: { attach: [theirs.id] }, headers: { cookie: bManager } })).statusCode).toBe(404);

    // A creative of another campaign is detached there first.
    const other = await createCampaign({ name: 'Fall', mode: 'rotate', startsAt: '2027-09-01T00:00' });
    const fall = await uploadOk('new_2026_honda_odyssey_sport_1920x300.jpg', '#864202', { campaignId: other.id });
    const taken = await attach(c.id, { attach: [fall.id] });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.message).toMatch(/Fall/);
    // An ended campaign's creatives stay as they are; a body with nothing to do is refused.
    await act(other.id, 'end');
    expect((await attach(other.id, { detach: [fall.id] })).statusCode).toBe(409);
    expect((await attach(c.id, {})).statusCode).toBe(400);
    expect(await version()).toBeGreaterThan(v0);
    expect((await attach(c.id, { attach: [header.id] })).json().campaign.assetCount).toBe(1);
  });
});

describe('campaign input', () => {
  it('refuses bad windows and unknown campaigns with structured 400s, and viewers with 403', async () => {
    const bad = await send('POST', `${api}/campaigns`, { name: 'X', mode: 'takeover', startsAt: 'soon' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields).toEqual([expect.objectContaining({ path: 'startsAt' })]);
    const order = await send('POST', `${api}/campaigns`, { name: 'X', mode: 'rotate', startsAt: '2027-03-02T00:00', endsAt: '2027-03-01T00:00' });
    expect(order.statusCode).toBe(400);
    expect(order.json().error.fields).toEqual([expect.objectContaining({ path: 'endsAt' })]);
    const unknown = await upload('new_2026_honda_pilot_elite_1920x300.jpg', '#777777', { campaignId: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.fields).toEqual([expect.objectContaining({ path: 'campaignId' })]);
    const asOf = await send('GET', `${api}/preview?model=civic&asOf=tomorrow`);
    expect(asOf.statusCode).toBe(400);
    expect((await send('POST', `${api}/campaigns`, { name: 'V', mode: 'rotate', startsAt: '2027-03-01T00:00' }, viewer)).statusCode).toBe(403);
  });
});
