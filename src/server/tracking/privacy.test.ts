/**
 * The embed script on real dealer sites, server side: an impression counts once per
 * page view and slot (a retried beacon is not a second impression); a conversion counts only for
 * the page view of a stored banner click, once per page view and once per lead; stored page URLs
 * keep only the providers' model filters; the dealer's "Respect Do-Not-Track / Global Privacy
 * Control" setting (on by default) round-trips through the admin settings, reaches the served
 * script's config, and makes the track route drop beacons sent with DNT or GPC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { addDealerAsAdmin, createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { eventKeys, events, eventUrls } from '../db/schema';
import { embeddedConfig } from '../scripts/service';
import { leadIdHash } from './service';
import type { TrackEventName } from '../../domain/schemas';

const ORIGIN = 'https://www.hondaofdemo.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const PAGE = `${ORIGIN}/new-inventory?new=true&model=civic`;
let t: TestApp;
let admin: string;
let manager: string;

const track = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, type: 'header', model: 'civic', url: PAGE, ...body }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN, ...headers },
  });
const ok = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await track(body, headers);
  expect(res.statusCode, res.body).toBe(204);
};
const stats = async (): Promise<{ impressions: number; clicks: number; conversions: number }> =>
  (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/stats`, headers: { cookie: manager } })).json();
const stored = async (event: TrackEventName, pageView: string) => {
  await t.app.events.flush();
  // The page URL as stored: its row in the URL dictionary (migration 0022), '' when none.
  return t.database.db
    .select({ ...getTableColumns(events), url: sql<string>`coalesce(${eventUrls.url}, '')` })
    .from(events)
    .leftJoin(eventUrls, eq(eventUrls.id, events.urlId))
    .where(and(eq(events.dealerKey, dealerKeyOf(DEMO_DEALER.id)), eq(events.event, event), eq(events.pageView, pageView)));
};
const security = async (dealerId = DEMO_DEALER.id) =>
  (await t.app.inject({ method: 'GET', url: `/api/dealers/${dealerId}`, headers: { cookie: admin } })).json().dealer.security;
const saveSecurity = (patch: Record<string, unknown>, dealerId = DEMO_DEALER.id) =>
  security(dealerId).then((s) =>
    t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${dealerId}/settings`, headers: { cookie: admin }, payload: { security: { ...s, ...patch } } }),
  );

beforeAll(async () => {
  ({ t, cookie: admin } = await createSignedInTestApp('admin'));
  manager = await t.login('manager@hondaofdemo.com', 'manager123');
  // Dozens of beacons from one client: the limits have their own tests (rate-limits.test.ts).
  expect((await saveSecurity({ rateLimitEnabled: false })).statusCode).toBe(200);
});
afterAll(() => t.close());

describe('impressions count once per page view and slot', () => {
  it('counts the same impression posted twice (a beacon retried after a 503) once, in events and stats', async () => {
    const before = await stats();
    const refusedBefore = t.app.events.stats().impressionsIgnored;
    await ok({ event: 'impression', pv: 'aaaaaaaaaaaa0001' });
    await ok({ event: 'impression', pv: 'aaaaaaaaaaaa0001' }); // same batch
    await t.app.events.flush();
    await ok({ event: 'impression', pv: 'aaaaaaaaaaaa0001' }); // a later batch
    expect(await stored('impression', 'aaaaaaaaaaaa0001')).toHaveLength(1);
    expect(await stats()).toMatchObject({ impressions: before.impressions + 1 });
    expect(t.app.events.stats().impressionsIgnored - refusedBefore).toBe(2);
  });

  it('counts each slot of one page view, and each page view', async () => {
    const before = await stats();
    for (const type of ['header', 'primary', 'upsell']) await ok({ event: 'impression', type, pv: 'aaaaaaaaaaaa0002' });
    await ok({ event: 'impression', pv: 'aaaaaaaaaaaa0003' });
    expect(await stats()).toMatchObject({ impressions: before.impressions + 4 });
  });
});

describe('conversions count only after a banner click, once', () => {
  const clicked = async (pv: string, type = 'header') => {
    await ok({ event: 'impression', type, pv });
    await ok({ event: 'click', type, pv });
  };

  it('refuses a conversion without pv (400 naming the field); nothing is stored', async () => {
    const before = await stats();
    const res = await track({ event: 'conversion' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('pv: is required for conversions');
    expect(await stats()).toEqual(before);
  });

  it('does not store a conversion whose page view has no banner click', async () => {
    const before = await stats();
    const refusedBefore = t.app.events.stats().conversionsRefused;
    await ok({ event: 'conversion', pv: 'bbbbbbbbbbbb0001' }); // never rendered
    await ok({ event: 'impression', pv: 'bbbbbbbbbbbb0002' });
    await ok({ event: 'conversion', pv: 'bbbbbbbbbbbb0002' }); // rendered, not clicked
    expect(await stored('conversion', 'bbbbbbbbbbbb0001')).toHaveLength(0);
    expect(await stored('conversion', 'bbbbbbbbbbbb0002')).toHaveLength(0);
    expect(await stats()).toMatchObject({ conversions: before.conversions });
    expect(t.app.events.stats().conversionsRefused - refusedBefore).toBe(2);
  });

  it('counts a conversion after a click of its page view (any slot), once even when posted again (a reloaded thank-you page)', async () => {
    const before = await stats();
    await clicked('cccccccccccc0001', 'primary');
    await ok({ event: 'conversion', type: 'header', pv: 'cccccccccccc0001' });
    expect(await stats()).toMatchObject({ conversions: before.conversions + 1 });
    await ok({ event: 'conversion', type: 'header', pv: 'cccccccccccc0001' });
    await ok({ event: 'conversion', type: 'header', pv: 'cccccccccccc0001', leadId: 'lead-reloaded' });
    expect(await stored('conversion', 'cccccccccccc0001')).toHaveLength(1);
    expect(await stats()).toMatchObject({ conversions: before.conversions + 1 });
  });

  it('counts a click and its conversion arriving in the same batch', async () => {
    const before = await stats();
    await ok({ event: 'impression', pv: 'cccccccccccc0002' });
    await t.app.events.flush();
    const batch = [track({ event: 'click', pv: 'cccccccccccc0002' }), track({ event: 'conversion', pv: 'cccccccccccc0002' })];
    expect((await Promise.all(batch)).map((r) => r.statusCode)).toEqual([204, 204]);
    expect(await stats()).toMatchObject({ clicks: before.clicks + 1, conversions: before.conversions + 1 });
  });

  it('counts one conversion per lead: two page views sending the same leadId count once; the id is stored only as a hash', async () => {
    const before = await stats();
    await clicked('dddddddddddd0001');
    await clicked('dddddddddddd0002');
    await ok({ event: 'conversion', pv: 'dddddddddddd0001', leadId: 'jane@example.com' });
    await t.app.events.flush();
    await ok({ event: 'conversion', pv: 'dddddddddddd0002', leadId: ' jane@example.com ' });
    expect(await stats()).toMatchObject({ conversions: before.conversions + 1 });
    expect(await stored('conversion', 'dddddddddddd0001')).toHaveLength(1);
    // The lead is kept as its hash only, in the key that makes it count once (events carry no lead id).
    const leads = await t.database.db.select({ key: eventKeys.key }).from(eventKeys).where(and(eq(eventKeys.dealerId, DEMO_DEALER.id), eq(eventKeys.kind, 'lead')));
    expect(leads.map((l) => l.key)).toContain(leadIdHash(DEMO_DEALER.id, 'jane@example.com'));
    expect(JSON.stringify(await t.database.db.select().from(events))).not.toContain('jane@');
    expect(JSON.stringify(await t.database.db.select().from(eventKeys))).not.toContain('jane@');
  });

  it('refuses a leadId on other events, a long or control-character leadId (400 naming the field)', async () => {
    for (const body of [
      { event: 'impression', pv: 'eeeeeeeeeeee0001', leadId: 'x' },
      { event: 'conversion', pv: 'eeeeeeeeeeee0001', leadId: 'x'.repeat(101) },
      { event: 'conversion', pv: 'eeeeeeeeeeee0001', leadId: 'a\u0000b' },
      { event: 'conversion', pv: 'eeeeeeeeeeee0001', leadId: 42 },
    ]) {
      const res = await track(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.message).toMatch(/^leadId: /);
    }
  });
});

describe('stored page URLs (privacy by default)', () => {
  it('keeps origin, path and the model filters only: no other query parameter, no hash, no credentials', async () => {
    const cases: Array<[string, string]> = [
      [`${ORIGIN}/new-inventory?new=true&model=civic&name=Jane+Doe&email=jane%40example.com&phone=5551234#lead-form`, `${ORIGIN}/new-inventory?new=true&model=civic`],
      [`https://user:secret@www.hondaofdemo.com/contact?name=Jane&utm_source=mail#x`, `${ORIGIN}/contact`],
      [`${ORIGIN}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=CR-V&_dFR%5Btype%5D%5B0%5D=New&gclid=abc`, `${ORIGIN}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=CR-V&_dFR%5Btype%5D%5B0%5D=New`],
      [`${ORIGIN}/inventory?model=Civic&type=new&trim=Sport&phone=555`, `${ORIGIN}/inventory?model=Civic&type=new&trim=Sport`],
    ];
    for (const [i, [url, expected]] of cases.entries()) {
      const pv = `ffffffffffff000${i}`;
      await ok({ event: 'impression', pv, url });
      const [row] = await stored('impression', pv);
      expect(row!.url).toBe(expected);
    }
    const all = JSON.stringify(await t.database.db.select({ url: eventUrls.url }).from(eventUrls));
    for (const secret of ['Jane', 'jane', '5551234', 'lead-form', 'secret', 'utm_', 'gclid', '#']) expect(all).not.toContain(secret);
  });
});

describe('Respect Do-Not-Track / Global Privacy Control', () => {
  const scriptConfig = async () => {
    const res = await t.app.inject({ method: 'GET', url: `/scripts/dc-banners-${DEMO_DEALER.id}.js` });
    expect(res.statusCode).toBe(200);
    return { text: res.body, config: embeddedConfig(res.body) };
  };

  it('is on by default, for existing and new dealers', async () => {
    expect(await security()).toMatchObject({ respectDoNotTrack: true });
    const created = await addDealerAsAdmin(t, admin, { name: 'Privacy Honda', websiteUrl: 'https://www.privacyhonda.example' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().dealer.security).toMatchObject({ respectDoNotTrack: true });
    expect((await scriptConfig()).config.respectDnt).toBe(true);
  });

  it('round-trips through the admin settings API and reaches the served script config', async () => {
    const off = await saveSecurity({ respectDoNotTrack: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().dealer.security.respectDoNotTrack).toBe(false);
    expect(await security()).toMatchObject({ respectDoNotTrack: false });
    const { text, config } = await scriptConfig();
    expect(text).toContain('"respectDnt":false');
    expect(config.respectDnt).toBe(false);
    expect((await saveSecurity({ respectDoNotTrack: true })).statusCode).toBe(200);
    expect((await scriptConfig()).config.respectDnt).toBe(true);
  });

  it('refuses a value that is not a boolean (400 naming the field); a body without it gets the default', async () => {
    for (const value of ['false', 0, null]) {
      const res = await saveSecurity({ respectDoNotTrack: value });
      expect(res.statusCode, String(value)).toBe(400);
      expect(res.json().error.message).toMatch(/^security\.respectDoNotTrack: /);
    }
    expect((await saveSecurity({ respectDoNotTrack: false })).statusCode).toBe(200);
    const { respectDoNotTrack: _omitted, ...rest } = await security();
    const res = await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`, headers: { cookie: admin }, payload: { security: rest } });
    expect(res.statusCode).toBe(200);
    expect(res.json().dealer.security.respectDoNotTrack).toBe(true);
  });

  it('exports the setting and imports it back; an export without it imports as on', async () => {
    expect((await saveSecurity({ respectDoNotTrack: false })).statusCode).toBe(200);
    const doc = (await t.app.inject({ method: 'GET', url: '/api/admin/export', headers: { cookie: admin } })).json();
    const demo = doc.dealers.find((d: { id: string }) => d.id === DEMO_DEALER.id);
    expect(demo.security.respectDoNotTrack).toBe(false);
    const imported = await t.app.inject({ method: 'POST', url: '/api/admin/import', headers: { cookie: admin }, payload: doc });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(await security()).toMatchObject({ respectDoNotTrack: false });
    delete demo.security.respectDoNotTrack;
    expect((await t.app.inject({ method: 'POST', url: '/api/admin/import', headers: { cookie: admin }, payload: doc })).statusCode).toBe(200);
    expect(await security()).toMatchObject({ respectDoNotTrack: true });
  });

  it('drops beacons sent with DNT: 1 or Sec-GPC: 1 while the dealer respects them, and counts them once it does not', async () => {
    expect(await security()).toMatchObject({ respectDoNotTrack: true });
    await ok({ event: 'impression', pv: 'gggggggggggg0001' }, { dnt: '1' });
    await ok({ event: 'impression', pv: 'gggggggggggg0002' }, { 'sec-gpc': '1' });
    await ok({ event: 'impression', pv: 'gggggggggggg0003' }, { dnt: '0' });
    expect(await stored('impression', 'gggggggggggg0001')).toHaveLength(0);
    expect(await stored('impression', 'gggggggggggg0002')).toHaveLength(0);
    expect(await stored('impression', 'gggggggggggg0003')).toHaveLength(1);
    expect((await saveSecurity({ respectDoNotTrack: false })).statusCode).toBe(200);
    await ok({ event: 'impression', pv: 'gggggggggggg0001' }, { dnt: '1' });
    expect(await stored('impression', 'gggggggggggg0001')).toHaveLength(1);
    expect((await saveSecurity({ respectDoNotTrack: true })).statusCode).toBe(200);
  });
});
