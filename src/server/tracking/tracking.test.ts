import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealers, events } from '../db/schema';
import { eq, like } from 'drizzle-orm';
import { UNKNOWN_MODEL_KEY } from '../../domain/model-keys';

let t: TestApp;
let cookie: string;
const body = { dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', timestamp: new Date().toISOString(), url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: 'view-tracking-1' };
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const track = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA, origin: 'https://www.hondaofdemo.com', ...headers },
  });
const stats = async () => {
  const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/stats`, headers: { cookie } });
  return res.json();
};

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('viewer'));
  // These tests send a few hundred beacons from one client: the per-client limit is tested in public-policy.test.ts.
  const admin = await t.login('admin@dc-banners.com', 'admin123');
  const dealer = (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}`, headers: { cookie: admin } })).json().dealer;
  const saved = await t.app.inject({ method: 'PUT', url: `/api/admin/dealers/${DEMO_DEALER.id}/settings`, headers: { cookie: admin }, payload: { security: { ...dealer.security, rateLimitEnabled: false } } });
  expect(saved.statusCode).toBe(200);
});
afterAll(() => t.close());

describe('event tracking', () => {
  it('starts with no data', async () => {
    expect(await stats()).toEqual({ impressions: 0, clicks: 0, conversions: 0, ctr: null });
  });

  it('accepts impressions and clicks (JSON or text/plain beacons) and counts them', async () => {
    expect((await track(body)).statusCode).toBe(204);
    expect((await track({ ...body, pv: 'view-tracking-2' })).statusCode).toBe(204); // another page view (one impression per page view and slot)
    expect((await track({ ...body, event: 'click' }, { 'content-type': 'text/plain;charset=UTF-8' })).statusCode).toBe(204);
    expect(await stats()).toEqual({ impressions: 2, clicks: 1, conversions: 0, ctr: 50 });
    // Events carry the dealer's integer key (migration 0025): the dealer row it names.
    const rows = await t.database.db
      .select({ dealerId: dealers.id, slotType: events.slotType, model: events.model })
      .from(events)
      .innerJoin(dealers, eq(dealers.key, events.dealerKey));
    expect(rows[0]).toMatchObject({ dealerId: DEMO_DEALER.id, slotType: 'header', model: 'civic' });
  });

  it('refuses bad bodies with a message naming the field', async () => {
    const res = await track({ ...body, event: 'view' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^event: /);
    expect((await track('{not json', { 'content-type': 'text/plain' })).statusCode).toBe(400);
  });

  it('refuses unknown dealers', async () => {
    const res = await track({ ...body, dealerId: 'no-such-dealer' });
    expect(res.statusCode).toBe(404);
    // With the step that fixes it, which the embed script prints after the message.
    expect(res.json().error).toEqual({ code: 'NOT_FOUND', message: 'Unknown dealer', hint: 'copy the tag again from the Script page' });
  });

  it('refuses bodies over 4 KB', async () => {
    const res = await track({ ...body, url: 'x'.repeat(5000) });
    expect(res.statusCode).toBe(413);
  });

  it('acknowledges but does not count known bots', async () => {
    const before = await stats();
    const res = await track(body, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' });
    expect(res.statusCode).toBe(204);
    expect(await stats()).toEqual(before);
  });

  it('refuses hostile strings with 400 naming the field, and keeps counting the valid events after them', async () => {
    const before = await stats();
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ model: 'x\u0000y' }, /^model: must not contain control characters/],
      [{ model: 'civic\u0085' }, /^model: /],
      [{ model: '\ud800civic' }, /^model: /],
      [{ model: ' -_. ' }, /^model: must name a model/],
      [{ model: '=+@' }, /^model: must name a model/],
      [{ model: undefined }, /^model: /],
      [{ url: 'javascript:alert(1)' }, /^url: must be an http\(s\) URL/],
      [{ url: 'https://x.example/\u0000' }, /^url: /],
      [{ timestamp: '2026\u0000' }, /^timestamp: /],
      [{ dealerId: 'Honda-Of-Demo' }, /^dealerId: /],
    ];
    for (const [patch, message] of refused) {
      const res = await track({ ...body, ...patch });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      expect(res.json().error.message).toMatch(message);
    }
    for (let i = 0; i < 20; i++) expect((await track({ ...body, pv: `view-hostile-${i}` })).statusCode).toBe(204);
    expect(await stats()).toMatchObject({ impressions: before.impressions + 20 });
  });

  it("stores the dealer's models by their comparison key, and any other model (prototype names, formula prefixes, another brand's) under the one unknown-model key", async () => {
    for (const [i, model] of ['constructor', '__proto__', '=HYPERLINK("x")', 'CR-V', 'Santa Fe', 'Civic Type R'].entries()) {
      expect((await track({ ...body, model, pv: `view-model-${i}` })).statusCode).toBe(204);
    }
    await t.app.events.flush();
    const rows = await t.database.db.select({ model: events.model }).from(events).where(like(events.pageView, 'view-model-%')).orderBy(events.pageView);
    expect(rows.map((r) => r.model).slice(-6)).toEqual([UNKNOWN_MODEL_KEY, UNKNOWN_MODEL_KEY, UNKNOWN_MODEL_KEY, 'crv', UNKNOWN_MODEL_KEY, 'civictyper']);
  });

  it('shows admins how many events the database refused', async () => {
    const admin = await t.login('admin@dc-banners.com', 'admin123');
    const dashboard = async () => (await t.app.inject({ method: 'GET', url: '/api/admin/dashboard', headers: { cookie: admin } })).json();
    expect((await dashboard()).deadLetteredEvents).toBe(0);
    // An event that passed validation but that the database refuses (NUL bytes cannot be stored).
    const accepted = { dealerId: DEMO_DEALER.id, event: 'impression' as const, slotType: 'header' as const, model: 'x\u0000y', url: '', occurredAt: new Date(), pageView: 'view-dead' };
    t.app.events.enqueue(accepted);
    t.app.events.enqueue({ ...accepted, model: 'civic' });
    await expect.poll(async () => (await dashboard()).deadLetteredEvents, { timeout: 10_000 }).toBe(1);
    expect(t.app.events.stats()).toMatchObject({ pending: 0, deadLettered: 1 });
  });

  it('refuses beacons from an opaque origin, and without Origin or Referer while the dealer restricts domains', async () => {
    const before = await stats();
    const opaque = await track(body, { origin: 'null' });
    expect(opaque.statusCode).toBe(403);
    expect(opaque.json().error.message).toBe('Beacons from an opaque origin (Origin: null) are refused');
    expect(opaque.json().error.hint).toBe("load the tag on a page of a domain you add to the dealer's Allowed domains (Security settings, admins only; example.com covers www.example.com, not the reverse)");
    const bare = await t.app.inject({ method: 'POST', url: '/api/analytics/track', payload: JSON.stringify(body), headers: { 'content-type': 'text/plain', 'user-agent': BROWSER_UA } });
    expect(bare.statusCode).toBe(403);
    expect(bare.json().error.message).toMatch(/allowed domain/);
    // The refusal names its reason to any page (the embed script warns in the console with it).
    const foreign = await track(body, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBe('*');
    expect(foreign.json().error.message).toBe('Origin https://evil.example is not an allowed domain for this dealer');
    // The setting that changes it, naming the page's host (the embed script prints it in the console).
    expect(foreign.json().error.hint).toBe("add evil.example to the dealer's Allowed domains (Security settings, admins only; example.com covers www.example.com, not the reverse)");
    // A Referer from an allowed page is enough (browsers may omit Origin on same-origin-like requests).
    const referred = await t.app.inject({ method: 'POST', url: '/api/analytics/track', payload: JSON.stringify({ ...body, pv: 'view-referred' }), headers: { 'content-type': 'text/plain', 'user-agent': BROWSER_UA, referer: 'https://www.hondaofdemo.com/new-inventory' } });
    expect(referred.statusCode).toBe(204);
    expect(await stats()).toMatchObject({ impressions: before.impressions + 1 });
  });

  it('counts clicks only for banners their page view rendered, so CTR cannot pass 100 %', async () => {
    const noView = await track({ ...body, event: 'click', pv: undefined });
    expect(noView.statusCode).toBe(400);
    expect(noView.json().error.message).toBe('pv: is required for clicks');
    const before = await stats();
    // 216 fabricated clicks, each with a page view that never rendered a banner.
    for (let i = 0; i < 216; i++) expect((await track({ ...body, event: 'click', pv: `forged-view-${i}` })).statusCode).toBe(204);
    // A real page view: its impression, then three clicks on the same banner.
    expect((await track({ ...body, pv: 'view-real-1' })).statusCode).toBe(204);
    for (let i = 0; i < 3; i++) expect((await track({ ...body, event: 'click', pv: 'view-real-1' })).statusCode).toBe(204);
    expect(await stats()).toMatchObject({ impressions: before.impressions + 1, clicks: before.clicks + 1 });
  });

  it('counts a click that brings its impression (imp) however its impression beacon is ordered, each once', async () => {
    const before = await stats();
    // The click arrives before the page view's impression beacon, and is stored by itself.
    expect((await track({ ...body, event: 'click', pv: 'view-imp-1', imp: 1 })).statusCode).toBe(204);
    await t.app.events.flush();
    expect(await stats()).toMatchObject({ impressions: before.impressions + 1, clicks: before.clicks + 1 });
    // The impression beacon arriving later, and the same click again, count nothing.
    expect((await track({ ...body, pv: 'view-imp-1' })).statusCode).toBe(204);
    expect((await track({ ...body, event: 'click', pv: 'view-imp-1', imp: 1 })).statusCode).toBe(204);
    // Both in one batch, the click first: the impression still goes first.
    expect((await track({ ...body, event: 'click', pv: 'view-imp-2', imp: 1 })).statusCode).toBe(204);
    expect((await track({ ...body, pv: 'view-imp-2' })).statusCode).toBe(204);
    expect(await stats()).toMatchObject({ impressions: before.impressions + 2, clicks: before.clicks + 2 });
    // Without imp a click that comes first is not counted (its impression was not there).
    expect((await track({ ...body, event: 'click', pv: 'view-imp-3' })).statusCode).toBe(204);
    expect(await stats()).toMatchObject({ impressions: before.impressions + 2, clicks: before.clicks + 2 });
    const wrong = await track({ ...body, pv: 'view-imp-4', imp: 1 });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.message).toBe('imp: is only for clicks');
  });
});

