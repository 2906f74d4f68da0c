/**
 * Rate limits that spare real shoppers: banner images and the script are not limited
 * per client IP; tracking is limited per page view by the dealer's maxRequestsPerMinute and per
 * client IP by that times RATE_LIMIT_NAT_FACTOR. 60 page views a minute from one IP (a showroom's
 * Wi-Fi) all get their banners and have every beacon counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, like } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { dealerKeyOf } from '../db/dealer-row';
import { dealers, events } from '../db/schema';
import { MAX_REQUESTS_PER_MINUTE, RATE_LIMIT_NAT_FACTOR } from '../../domain/constants';
import type { Security, TrackEventName } from '../../domain/schemas';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const ORIGIN = 'https://www.hondaofdemo.com';
const SLOTS = ['header', 'primary', 'upsell'] as const;
let t: TestApp;

const image = (slot: string, remoteAddress: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=${slot}&variant=desktop`,
    headers: { 'user-agent': UA, accept: 'image/avif,image/webp,*/*', referer: `${ORIGIN}/new-inventory?model=civic` },
    remoteAddress,
  });
const beacon = (body: Record<string, unknown>, remoteAddress: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/analytics/track',
    payload: JSON.stringify({ dealerId: DEMO_DEALER.id, model: 'civic', url: `${ORIGIN}/new-inventory?model=civic`, ...body }),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': UA, origin: ORIGIN },
    remoteAddress,
  });
const stored = async (event: TrackEventName, pvPrefix: string) => {
  await t.app.events.flush();
  return t.database.db.$count(events, and(eq(events.dealerKey, dealerKeyOf(DEMO_DEALER.id)), eq(events.event, event), like(events.pageView, `${pvPrefix}%`)));
};

async function security(): Promise<Security> {
  const [d] = await t.database.db.select({ security: dealers.security }).from(dealers).where(eq(dealers.id, DEMO_DEALER.id));
  return d!.security;
}
const setSecurity = (patch: Partial<Security>) => t.patchSecurity(patch);

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('rate limits behind one NAT', () => {
  it('60 page views a minute from one IP under the default settings: every banner served, every beacon 204 and counted', async () => {
    const s = await security();
    expect(s).toMatchObject({ rateLimitEnabled: true, maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback });
    const ip = '198.51.100.10';
    const imageStatuses: number[] = [];
    const beaconStatuses: number[] = [];
    for (let view = 0; view < 60; view++) {
      const pv = `nat-view-${String(view).padStart(3, '0')}`;
      for (const slot of SLOTS) imageStatuses.push((await image(slot, ip)).statusCode);
      for (const slot of SLOTS) beaconStatuses.push((await beacon({ event: 'impression', type: slot, pv }, ip)).statusCode);
      beaconStatuses.push((await beacon({ event: 'click', type: 'header', pv }, ip)).statusCode);
    }
    expect(imageStatuses).toHaveLength(180);
    expect(imageStatuses.filter((s) => s !== 200 && s !== 302)).toEqual([]);
    expect(beaconStatuses).toHaveLength(240);
    expect(beaconStatuses.filter((s) => s !== 204)).toEqual([]);
    expect(await stored('impression', 'nat-view-')).toBe(180);
    expect(await stored('click', 'nat-view-')).toBe(60);
  });

  it('does not limit banner images or the script per client IP, whatever the dealer limit', async () => {
    await setSecurity({ maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.min });
    const ip = '198.51.100.11';
    const statuses: number[] = [];
    for (let i = 0; i < MAX_REQUESTS_PER_MINUTE.min * 3; i++) {
      statuses.push((await image(SLOTS[i % 3]!, ip)).statusCode);
      statuses.push((await t.app.inject({ method: 'GET', url: `/scripts/dc-banners-${DEMO_DEALER.id}.js`, remoteAddress: ip })).statusCode);
    }
    expect(statuses.filter((s) => s !== 200 && s !== 302)).toEqual([]);
    await setSecurity({ maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback });
  });

  it("limits one page view to the dealer's maxRequestsPerMinute (429 with Retry-After), other page views on the same IP unaffected", async () => {
    const max = MAX_REQUESTS_PER_MINUTE.min;
    await setSecurity({ maxRequestsPerMinute: max });
    const ip = '198.51.100.12';
    const statuses: number[] = [];
    for (let i = 0; i <= max; i++) statuses.push((await beacon({ event: 'impression', type: SLOTS[i % 3], pv: 'flood-view-1' }, ip)).statusCode);
    expect(statuses.slice(0, max).every((s) => s === 204)).toBe(true);
    const limited = await beacon({ event: 'impression', type: 'header', pv: 'flood-view-1' }, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(statuses[max]).toBe(429);
    // Another shopper behind the same IP still passes.
    expect((await beacon({ event: 'impression', type: 'header', pv: 'flood-view-2' }, ip)).statusCode).toBe(204);
    await setSecurity({ maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback });
  });

  it(`limits one IP to maxRequestsPerMinute × ${RATE_LIMIT_NAT_FACTOR} beacons a minute across page views, conversions included`, async () => {
    const max = MAX_REQUESTS_PER_MINUTE.min;
    const budget = max * RATE_LIMIT_NAT_FACTOR;
    await setSecurity({ maxRequestsPerMinute: max });
    const ip = '198.51.100.13';
    // Conversions (each naming its click's page view): more than `max` from one IP pass, within the IP budget.
    for (let i = 0; i <= max; i++) expect((await beacon({ event: 'conversion', pv: `budget-conversion-${i}` }, ip)).statusCode).toBe(204);
    const statuses: number[] = [];
    for (let i = max + 1; i < budget; i++) statuses.push((await beacon({ event: 'impression', type: 'header', pv: `budget-view-${i}` }, ip)).statusCode);
    expect(statuses.filter((s) => s !== 204)).toEqual([]);
    const limited = await beacon({ event: 'impression', type: 'header', pv: 'budget-view-last' }, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Too many requests, please try again later', hint: "the dealer's Max requests per minute (Security settings)" });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await beacon({ event: 'conversion', pv: 'budget-conversion-last' }, ip)).statusCode).toBe(429);
    // Another IP keeps its own budget; the limited IP's banners are still served.
    expect((await beacon({ event: 'impression', type: 'header', pv: 'budget-other-ip' }, '198.51.100.14')).statusCode).toBe(204);
    expect([200, 302]).toContain((await image('header', ip)).statusCode);
    // A dealer that switched limiting off has neither limit.
    await setSecurity({ rateLimitEnabled: false });
    expect((await beacon({ event: 'impression', type: 'header', pv: 'budget-view-off' }, ip)).statusCode).toBe(204);
    await setSecurity({ rateLimitEnabled: true, maxRequestsPerMinute: MAX_REQUESTS_PER_MINUTE.fallback });
  });
});
