/**
 * A flood of unique unknown `model=` values costs no database query (the dealer's page
 * plans refuse a model it does not have at once; the per-version set of model keys with assets
 * answers "no asset" for known models) and cannot evict the hot banner from the delivery caches. Queries are counted at the database client (PGlite or node-postgres pool).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';
import { bannerBytes, resolveBanner } from './service';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
  const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_civic_sport_1920x300.jpg', data: await makeBanner(1920, 300) }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  expect(res.json().results[0].ok).toBe(true);
});
afterAll(() => t.close());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Counts every query the app's database client runs from now on. */
function countQueries(): { count: () => number } {
  const client = (t.database.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const spy = vi.spyOn(client, 'query');
  return { count: () => spy.mock.calls.length };
}

/** What the banner route does: the dealer's lookup, the choice made from it, and its bytes. */
async function deliver(model: string, trim?: string) {
  const dealer = await t.app.dealerSites.find(DEMO_DEALER.id);
  if (!dealer) throw new Error('the demo dealer is missing');
  const r = await resolveBanner(t.app, dealer, { model, type: 'header', variant: 'desktop', trim }, t.app.cdnProbes);
  return { r, bytes: await bannerBytes(t.app, r, { type: 'header', acceptsWebp: true }) };
}

describe('unknown models', () => {
  it('after warming, 1,000 unique unknown models cause zero database queries and the hot banner stays cached', async () => {
    // Date frozen: the dealer-settings lifetime must not expire in the middle of the count.
    vi.useFakeTimers({ toFake: ['Date'] });
    const hot = await deliver('civic');
    expect(hot.r.source).toBe('asset');

    const queries = countQueries();
    for (let i = 0; i < 1000; i++) {
      // A model the dealer does not have: refused (the script hides such slots), nothing drawn.
      await expect(deliver(`flood-${i}-${Math.random().toString(36).slice(2)}`)).rejects.toThrow(/not one of this dealer's models/);
    }
    expect(queries.count()).toBe(0);

    const again = await deliver('civic');
    expect(queries.count()).toBe(0);
    expect(again.r).toBe(hot.r); // the same cached choice object
    expect(again.bytes).toBe(hot.bytes); // the same cached bytes, not re-encoded

    t.app.dealerSites.forget(DEMO_DEALER.id);
    await deliver('civic');
    expect(queries.count()).toBe(1); // the counter does see queries: the dealer's settings, read again
  });

  it('concurrent requests after a change share one settings query, and an expired copy answers while it is refreshed', async () => {
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now });
    await deliver('civic');
    t.app.dealerSites.forget(DEMO_DEALER.id);
    const queries = countQueries();
    const all = await Promise.all(Array.from({ length: 50 }, () => deliver('civic')));
    expect(all.every((d) => d.r.source === 'asset')).toBe(true);
    expect(queries.count()).toBe(1);

    vi.setSystemTime(now + t.app.dealerSites.cache.lifetimeMs + 1); // past the copy's lifetime (minutes while the app listens for changes)
    const stale = await deliver('civic');
    expect(stale.r.dealer).toBe(all[0]!.r.dealer); // answered from the expired copy, without waiting
    // One query refreshes it; the refreshed copy then answers.
    await vi.waitFor(async () => expect((await deliver('civic')).r.dealer).not.toBe(all[0]!.r.dealer));
    expect(queries.count()).toBe(2);
  });

  it('a flood of unique trims for the hot model costs no query and no re-encoding', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hot = await deliver('civic');
    const queries = countQueries();
    for (let i = 0; i < 300; i++) {
      const { r, bytes } = await deliver('civic', `trim-${i}`);
      expect(r.source).toBe('asset');
      expect(bytes).toBe(hot.bytes); // encoded bytes are keyed by asset, not trim
    }
    expect(queries.count()).toBe(0);
    expect((await deliver('civic')).r).toBe(hot.r);
  });

  it('sees a new upload at once: the version changes, so the set of models with assets is read again', async () => {
    const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    expect((await deliver('accord')).r.source).toBe('placeholder');
    const { body, contentType } = multipartBody([{ filename: 'new_2025_honda_accord_ex_1920x300.jpg', data: await makeBanner(1920, 300) }]);
    await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
    expect((await deliver('accord')).r.source).toBe('asset');
  });
});
