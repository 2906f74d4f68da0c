/**
 * Tag health through the dealer's Script page API: every beacon of a known dealer is counted by
 * what became of it (counted, bot, domain not allowed, HTTPS required, rate limit, Do-Not-Track/GPC,
 * invalid) per page origin, with the last beacon seen per origin and slot; the counters are written
 * in batches that add up across writers, keep no IP, user agent or page address, and cap the
 * origins kept per dealer. "Test my page" tells what a page address would meet, without loading it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { tagHealthHourly, tagLastSeen } from '../db/schema';
import type { PageCheck, TagHealth } from '../../domain/contracts/tag-health';
import { TAG_HEALTH_ORIGINS_PER_DEALER, TAG_OTHER_ORIGIN } from '../../domain/tag-health';
import { MAX_REQUESTS_PER_MINUTE } from '../../domain/constants';
import { TagHealthRecorder } from './tag-health';

const ORIGIN = 'https://www.hondaofdemo.com';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const HEADLESS_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36';
const CLIENT_IP = '203.0.113.77';
let t: TestApp;
let manager: string;
let pv = 0;

/** One beacon as the embed script sends it, from `origin` over `proto` (X-Forwarded-Proto, TRUST_PROXY on). */
const track = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}, proto = 'https') =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: `${ORIGIN}/new-inventory?model=civic`, pv: `taghealth-pv-${String(++pv).padStart(4, '0')}`, ...body }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN, 'x-forwarded-proto': proto, ...headers },
    remoteAddress: CLIENT_IP,
  });
const health = async (dealerId: string = DEMO_DEALER.id, cookie = manager) => t.app.inject({ method: 'GET', url: `/api/dealers/${dealerId}/tag-health`, headers: { cookie } });
const healthOk = async (): Promise<TagHealth> => {
  const res = await health();
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const count = (h: TagHealth, origin: string, reason: string) => h.counts.find((c) => c.origin === origin && c.reason === reason)?.beacons ?? 0;
/** "Test my page" for `url`, as the dealer's manager (or as the user of `cookie`). */
const pageCheck = async (url: string, cookie = manager): Promise<PageCheck> => {
  const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/tag-health/page-check?url=${encodeURIComponent(url)}`, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  // An HTTPS deployment behind a proxy, so a dealer's requireHttps applies to beacons.
  ({ t, cookie: manager } = await createSignedInTestApp('dealer-manager', { env: { PUBLIC_ORIGIN: 'https://dcb.example.com', TRUST_PROXY: '1' } }));
});
afterAll(() => t.close());

describe('tag health counts what became of each beacon', () => {
  it('shows a counted beacon and a headless-browser beacon (dropped as a bot) by origin, with the last beacon seen per slot', async () => {
    const before = await healthOk();
    expect((await track()).statusCode).toBe(204);
    expect((await track({ type: 'primary' }, { 'user-agent': HEADLESS_UA })).statusCode).toBe(204);
    const h = await healthOk();
    expect(count(h, ORIGIN, 'counted')).toBe(count(before, ORIGIN, 'counted') + 1);
    expect(count(h, ORIGIN, 'bot')).toBe(count(before, ORIGIN, 'bot') + 1);
    const header = h.seen.find((s) => s.origin === ORIGIN && s.slotType === 'header');
    expect(header?.lastCountedAt).not.toBeNull();
    const primary = h.seen.find((s) => s.origin === ORIGIN && s.slotType === 'primary');
    expect(primary).toMatchObject({ lastCountedAt: null });
    expect(Date.parse(primary!.lastSeenAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(h.windowHours).toBe(24);
  });

  it('counts a beacon from a page outside the allowed domains, one over plain HTTP and one opted out, each by its reason', async () => {
    const evil = 'https://copycat.example.net';
    expect((await track({}, { origin: evil })).statusCode).toBe(403);
    expect((await track({}, {}, 'http')).statusCode).toBe(403);
    expect((await track({}, { dnt: '1' })).statusCode).toBe(204);
    expect((await track({}, { 'sec-gpc': '1' })).statusCode).toBe(204);
    const h = await healthOk();
    expect(count(h, evil, 'domain')).toBe(1);
    expect(count(h, ORIGIN, 'https')).toBe(1);
    expect(count(h, ORIGIN, 'opted-out')).toBe(2);
    expect(h.seen.find((s) => s.origin === evil)).toMatchObject({ slotType: 'header', lastCountedAt: null });
  });

  it('counts a beacon that names the dealer but is not valid as invalid, and stores nothing for an unknown dealer', async () => {
    expect((await track({ event: 'hover' })).statusCode).toBe(400);
    expect((await track({ dealerId: 'no-such-dealer' })).statusCode).toBe(404);
    const h = await healthOk();
    expect(count(h, ORIGIN, 'invalid')).toBe(1);
    const rows = await t.database.db.select().from(tagHealthHourly);
    expect(rows.filter((r) => r.dealerId !== DEMO_DEALER.id)).toEqual([]);
  });

  it('counts beacons over the rate limit', async () => {
    await t.patchSecurity({ maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.min });
    try {
      const statuses: number[] = [];
      // One page view sending more than its per-minute budget (a page re-rendering banners in a loop).
      for (let i = 0; i < MAX_REQUESTS_PER_MINUTE.min + 3; i++) statuses.push((await track({ pv: 'taghealth-loop-0001', type: 'upsell' })).statusCode);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
      expect(count(await healthOk(), ORIGIN, 'rate-limit')).toBe(3);
    } finally {
      await t.patchSecurity({ maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback });
    }
  });
});

describe('tag health storage', () => {
  it('keeps counts across flushes, and counts written by another process add up', async () => {
    const before = count(await healthOk(), ORIGIN, 'bot');
    expect((await track({}, { 'user-agent': HEADLESS_UA })).statusCode).toBe(204);
    await t.app.tagHealth.flush();
    expect((await track({}, { 'user-agent': HEADLESS_UA })).statusCode).toBe(204);
    // A second server process on the same database, flushing its own counters for the same hour.
    const other = new TagHealthRecorder(t.database.db, t.app.log);
    other.record(DEMO_DEALER.id, ORIGIN, 'header', 'bot');
    other.record(DEMO_DEALER.id, ORIGIN, 'header', 'bot');
    await other.close();
    expect(count(await healthOk(), ORIGIN, 'bot')).toBe(before + 4);
  });

  it("writes the other dealers' counters when a dealer was deleted before its counters were written", async () => {
    const before = count(await healthOk(), ORIGIN, 'bot');
    const other = new TagHealthRecorder(t.database.db, t.app.log);
    other.record('deleted-dealer', 'https://gone.example', 'header', 'bot');
    other.record(DEMO_DEALER.id, ORIGIN, 'header', 'bot');
    await other.flush(); // refused by the foreign key: the deleted dealer's counters are left out
    await other.close();
    expect(count(await healthOk(), ORIGIN, 'bot')).toBe(before + 1);
  });

  it('stores no client IP, user agent or page address', async () => {
    expect((await track({ url: `${ORIGIN}/new-inventory?model=civic&email=shopper%40example.com` }, { 'user-agent': HEADLESS_UA, referer: `${ORIGIN}/secret-path?x=1` })).statusCode).toBe(204);
    await t.app.tagHealth.flush();
    const stored = JSON.stringify([await t.database.db.select().from(tagHealthHourly), await t.database.db.select().from(tagLastSeen)]);
    for (const personal of [CLIENT_IP, 'HeadlessChrome', 'Mozilla', 'secret-path', 'shopper', 'new-inventory']) expect(stored).not.toContain(personal);
    // A Referer with credentials keeps only its origin.
    expect((await track({}, { origin: 'null', referer: 'https://user:pw@www.hondaofdemo.com/x' })).statusCode).toBe(403);
    await t.app.tagHealth.flush();
    expect(JSON.stringify(await t.database.db.select().from(tagLastSeen))).not.toContain('user:pw');
  });

  it(`keeps at most ${TAG_HEALTH_ORIGINS_PER_DEALER} origins per dealer and counts the rest as '${TAG_OTHER_ORIGIN}'`, async () => {
    for (let i = 0; i < TAG_HEALTH_ORIGINS_PER_DEALER + 10; i++) {
      expect((await track({}, { origin: `https://forged-${i}.example.org` })).statusCode).toBe(403);
    }
    const h = await healthOk();
    const origins = new Set(h.seen.map((s) => s.origin).filter((o) => o !== TAG_OTHER_ORIGIN));
    expect(origins.size).toBe(TAG_HEALTH_ORIGINS_PER_DEALER);
    expect(origins.has(ORIGIN)).toBe(true); // stored first: not pushed out by later ones
    expect(count(h, TAG_OTHER_ORIGIN, 'domain')).toBeGreaterThan(0);
  });
});

describe('tag health access', () => {
  it('is readable by the dealer\'s users, not by others or anonymous callers', async () => {
    const viewer = await t.userCookie('viewer', DEMO_DEALER.id);
    expect((await health(DEMO_DEALER.id, viewer)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/tag-health` })).statusCode).toBe(401);
    expect([403, 404]).toContain((await health('some-other-dealer')).statusCode);
  });
});

describe('Test my page', () => {
  it('passes a page on an allowed domain and shows the beacons seen from its origin', async () => {
    const r = await pageCheck(`${ORIGIN}/new-inventory?model=civic`);
    expect(r.origin).toBe(ORIGIN);
    expect(r.findings.find((f) => f.check === 'domain')).toMatchObject({ status: 'ok' });
    expect(r.findings.find((f) => f.check === 'https')).toMatchObject({ status: 'ok' });
    expect(r.findings.filter((f) => f.status === 'problem')).toEqual([]);
    expect(r.seen.length).toBeGreaterThan(0);
    expect(r.counts.find((c) => c.reason === 'counted')?.beacons).toBeGreaterThan(0);
  });

  it('names the bare domain an allowed www. domain does not cover, and plain HTTP', async () => {
    const r = await pageCheck('http://hondaofdemo.com/new-inventory');
    expect(r.findings.find((f) => f.check === 'domain')).toMatchObject({ status: 'problem', reason: 'domain' });
    expect(r.findings.find((f) => f.check === 'www')?.message).toContain('list hondaofdemo.com');
    expect(r.findings.find((f) => f.check === 'https')).toMatchObject({ status: 'warning' });
    expect(r.seen).toEqual([]);
  });

  it("tells the dealer's staff to ask an administrator, and an administrator where to change the domains", async () => {
    const domain = (r: PageCheck) => r.findings.find((f) => f.check === 'domain')!.message;
    expect(domain(await pageCheck('https://staging.example.net/'))).toContain('Ask your administrator to add it under Security.');
    const admin = await t.userCookie('admin', null);
    const forAdmin = domain(await pageCheck('https://staging.example.net/', admin));
    expect(forAdmin).toContain("Add it to the allowed domains in the dealer's Security settings.");
    expect(forAdmin).not.toContain('administrator');
  });

  it('assumes https:// for an address typed without it, and refuses what is not a web address or is empty', async () => {
    const typed = await pageCheck('www.hondaofdemo.com/new-inventory');
    expect(typed.url).toBe('https://www.hondaofdemo.com/new-inventory');
    expect(typed.origin).toBe(ORIGIN);
    const bad = await pageCheck('ftp://www.hondaofdemo.com/');
    expect(bad.origin).toBeNull();
    expect(bad.findings).toContainEqual(expect.objectContaining({ check: 'address', status: 'problem' }));
    const empty = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/tag-health/page-check?url=`, headers: { cookie: manager } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.fields).toContainEqual(expect.objectContaining({ path: 'url' }));
  });

  it('warns when this deployment\'s addresses match an ad-blocker rule', async () => {
    const { t: blocked, cookie } = await createSignedInTestApp('dealer-manager', { env: { PUBLIC_ORIGIN: 'https://ads.example.com' } });
    try {
      const res = await blocked.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/tag-health/page-check?url=${encodeURIComponent(ORIGIN)}`, headers: { cookie } });
      const findings = (res.json() as PageCheck).findings.filter((f) => f.check === 'blocklist');
      expect(findings[0]).toMatchObject({ status: 'warning' });
      expect(findings[0]!.message).toContain('://ads.');
    } finally {
      await blocked.close();
    }
  });
});
