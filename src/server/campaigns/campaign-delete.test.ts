/**
 * Deleting a campaign through the dealer's API: the creatives uploaded into it go with it; a
 * creative the dealer chose from its assets survives, back on its own schedule, and shows on the
 * site again. The campaign list says how many of its creatives were uploaded into it, which is
 * what the delete dialog names; detaching an uploaded creative makes it one of the dealer's assets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

const D = DEMO_DEALER.id;
const api = `/api/dealers/${D}`;
let clock = new Date('2027-03-01T12:00:00Z');
let t: TestApp;
let manager: string;

beforeAll(async () => {
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager', { now: () => clock }));
}, 60_000);
afterAll(() => t.close());

const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) => t.app.inject({ method, url, payload: payload as never, headers: { cookie: manager } });

/** Uploads one 1920x300 header banner of its own colour, into `campaignId` when given; returns the stored asset's id. */
async function upload(filename: string, color: string, campaignId?: string): Promise<string> {
  const { body, contentType } = multipartBody([{ filename, data: await makeBanner(1920, 300, 'jpeg', color) }], campaignId ? { campaignId } : {});
  const res = await t.app.inject({ method: 'POST', url: `${api}/assets`, payload: body, headers: { cookie: manager, 'content-type': contentType } });
  expect(res.statusCode, res.body).toBe(200);
  const [r] = res.json().results;
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.asset.id as string;
}
const assetIds = async () => ((await send('GET', `${api}/assets`)).json().assets as Array<{ id: string; campaignId: string | null }>).map((a) => ({ id: a.id, campaignId: a.campaignId }));
const campaign = async (id: string) => ((await send('GET', `${api}/campaigns`)).json().campaigns as Array<{ id: string; assetCount: number; uploadedCount: number }>).find((c) => c.id === id);
/** The creative the public banner endpoint gives rotation buckets 0 and 1 of the model's desktop header now. */
async function delivered(model: string): Promise<string[]> {
  const out: string[] = [];
  for (const r of [0, 1]) {
    const res = await t.app.inject({ method: 'GET', url: `/api/scripts/${D}/asset?model=${model}&type=header&variant=desktop&v=1&r=${r}` });
    expect(res.statusCode, res.body).toBeLessThan(400);
    out.push(String(res.headers['x-banner-creative']));
  }
  return out;
}

describe('DELETE /api/dealers/:dealerId/campaigns/:campaignId', () => {
  it('deletes the creatives uploaded into the campaign and keeps the ones chosen from the library, which show again', async () => {
    const library = await upload('new_2026_honda_pilot_elite_spring_1920x300.jpg', '#336699');
    const res = await send('POST', `${api}/campaigns`, { name: 'Spring', mode: 'takeover', startsAt: '2027-03-01T00:00', endsAt: '2027-04-01T00:00', models: ['Pilot'], slots: ['header'] });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().campaign as { id: string };
    const uploaded = await upload('new_2026_honda_pilot_elite_springpromo_1920x300.jpg', '#993366', c.id);
    expect((await send('POST', `${api}/campaigns/${c.id}/assets`, { attach: [library] })).statusCode).toBe(200);
    expect((await send('POST', `${api}/campaigns/${c.id}/status`, { action: 'publish' })).statusCode).toBe(200);
    expect(await campaign(c.id)).toMatchObject({ assetCount: 2, uploadedCount: 1 });
    // Live: the takeover rotates its two creatives.
    expect((await delivered('pilot')).sort()).toEqual([library, uploaded].sort());

    expect((await send('DELETE', `${api}/campaigns/${c.id}`)).statusCode).toBe(204);
    expect(await campaign(c.id)).toBeUndefined();
    const left = await assetIds();
    expect(left.find((a) => a.id === uploaded)).toBeUndefined();
    expect(left.find((a) => a.id === library)).toEqual({ id: library, campaignId: null });
    // Back on its own (open) schedule: it alone shows for Pilot.
    expect(await delivered('pilot')).toEqual([library, library]);
  });

  it('keeps an uploaded creative that was detached before the deletion: it is one of the dealer\'s assets since', async () => {
    clock = new Date('2027-05-01T12:00:00Z');
    const res = await send('POST', `${api}/campaigns`, { name: 'Summer', mode: 'rotate', startsAt: '2027-06-01T00:00', models: [], slots: [] });
    const c = res.json().campaign as { id: string };
    const uploaded = await upload('new_2026_honda_passport_trailsport_summer_1920x300.jpg', '#669933', c.id);
    expect(await campaign(c.id)).toMatchObject({ assetCount: 1, uploadedCount: 1 });
    const off = await send('POST', `${api}/campaigns/${c.id}/assets`, { detach: [uploaded] });
    expect(off.json().campaign).toMatchObject({ assetCount: 0, uploadedCount: 0 });
    // Chosen again: now a library asset the campaign borrows.
    expect((await send('POST', `${api}/campaigns/${c.id}/assets`, { attach: [uploaded] })).json().campaign).toMatchObject({ assetCount: 1, uploadedCount: 0 });
    expect((await send('DELETE', `${api}/campaigns/${c.id}`)).statusCode).toBe(204);
    expect((await assetIds()).find((a) => a.id === uploaded)).toEqual({ id: uploaded, campaignId: null });
  });
});
