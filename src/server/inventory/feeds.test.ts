/**
 * Automatic inventory feeds through the HTTP API against a local feed server the test starts
 * (spec 02 §5 Feed, §8; DECISIONS 20): Test Feed's success and each error text, the
 * timeout (FEED_TIMEOUT_MS, tested at 200 ms; 15 s by default), private-address refusal (also after a redirect), Save, Pause/Resume, runs
 * recorded by the scheduler, a failing run keeping the last good inventory, one claim per
 * feed when two schedulers race, and a manual upload that pauses the feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { FEED_TIMEOUT_MS, INVENTORY_TEXT, feedTimeoutText } from '../../domain/constants';
import type { FeedRunView, FeedView, StoredInventory } from '../../domain/inventory';
import { FEED_PAUSED_DURING_RUN, claimDueFeeds } from './feeds';
import { multipartBody } from '../../../tests/fixtures/images';
import { startLocalServer, type LocalServer } from '../../../tests/fixtures/http-server';

const A = DEMO_DEALER.id;
const base = `/api/dealers/${A}/inventory`;
const sample = readFileSync(path.resolve('tests/fixtures/inventory/inventory-listofvehicles.json'));
const mapping = { model: 'Model', trim: 'Trim', year: 'Year', daysOnLot: 'DaysInStock', vin: 'VIN', stock: 'StockNumber' };

/** Feed server routes: path -> handler. */
const routes: Record<string, (res: http.ServerResponse) => void> = {
  '/feed.json': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(sample),
  '/error': (res) => res.writeHead(500, 'Internal Server Error').end('boom'),
  '/object': (res) => res.writeHead(200).end(JSON.stringify({ vehicles: { Model: 'Civic' } })),
  '/empty': (res) => res.writeHead(200).end('[]'),
  '/used-only': (res) => res.writeHead(200).end(JSON.stringify([{ Model: 'Civic', IsNew: false }])),
  '/html': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>nope</html>'),
  '/slow': () => undefined, // never answers
  '/to-metadata': (res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end(),
  '/loop': (res) => res.writeHead(302, { location: '/loop' }).end(),
  '/hop': (res) => res.writeHead(301, { location: '/feed.json' }).end(),
  // The dealer pauses the feed while its run is fetching.
  '/paused-meanwhile': (res) => void call('PATCH', `${base}/feed`, { isActive: false }).then(() => res.writeHead(200).end(sample)),
};
let feedHost: LocalServer;
let t: TestApp;
let cookie: string;

beforeAll(async () => {
  feedHost = await startLocalServer((req, res) => {
    if (req.headers.accept !== 'application/json') return res.writeHead(406).end();
    const handler = routes[req.url ?? ''];
    if (handler) handler(res);
    else res.writeHead(404, 'Not Found').end();
  });
  // Only the loopback address of the test feed server is allowed, like an operator's allow-list.
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } }));
});
afterAll(async () => {
  await t.close();
  await feedHost.close();
});

const call = (method: 'GET' | 'PUT' | 'PATCH' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url, payload, headers: { cookie } });
const testFeed = (feedPath: string) => call('POST', `${base}/feed/test`, { feedUrl: `${feedHost.origin}${feedPath}`, fieldMapping: mapping });
const feedState = async () => (await call('GET', `${base}/feed`)).json() as { feed: FeedView | null; runs: FeedRunView[] };
const inventory = async () => (await call('GET', base)).json().inventory as StoredInventory | null;

describe('Test Feed', () => {
  it('fetches the feed and reports what it holds, storing nothing', async () => {
    const res = await testFeed('/feed.json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ vehicleCount: 5, modelCount: 2, agedUnits: 2, skippedCount: 0 });
    expect(await inventory()).toBeNull();
    expect((await feedState()).feed).toBeNull();
  });

  it('follows a redirect', async () => {
    expect((await testFeed('/hop')).json()).toMatchObject({ vehicleCount: 5 });
  });

  it.each([
    ['/error', 'HTTP 500: Internal Server Error'],
    ['/missing', 'HTTP 404: Not Found'],
    ['/object', INVENTORY_TEXT.notArray],
    ['/empty', INVENTORY_TEXT.empty],
    ['/used-only', INVENTORY_TEXT.noNew],
    ['/html', 'Feed did not return valid JSON'],
    ['/loop', 'Feed redirected more than 3 times'],
  ])('%s is refused with "%s"', async (feedPath, message) => {
    const res = await testFeed(feedPath);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(message);
  });

  it('refuses a redirect to a link-local address (cloud metadata) before connecting', async () => {
    const res = await testFeed('/to-metadata');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('169.254.169.254, a private, loopback or link-local address');
  });

  it('names a missing URL with the spec text', async () => {
    const res = await call('POST', `${base}/feed/test`, { feedUrl: '  ' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(INVENTORY_TEXT.enterFeedUrl);
  });

  it('defaults to 15 seconds, whose message is the DECISIONS 20 text', () => {
    expect(t.config.feedTimeoutMs).toBe(15_000);
    expect(feedTimeoutText(t.config.feedTimeoutMs)).toBe(
      'Request timed out after 15 seconds. The feed may be too large or the server is slow to respond.',
    );
  });
});

describe('feed timeout', () => {
  // A short configured deadline (FEED_TIMEOUT_MS=200) instead of waiting out the default 15 s; its
  // own app, so the other tests' fetches keep the default deadline however busy the machine is.
  let quick: TestApp;
  let quickCookie: string;
  beforeAll(async () => {
    ({ t: quick, cookie: quickCookie } = await createSignedInTestApp('dealer-manager', { env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32', FEED_TIMEOUT_MS: '200' } }));
  });
  afterAll(() => quick.close());

  it('gives up after FEED_TIMEOUT_MS with the timeout text naming that deadline', async () => {
    const started = performance.now();
    const res = await quick.app.inject({ method: 'POST', url: `${base}/feed/test`, payload: { feedUrl: `${feedHost.origin}/slow` }, headers: { cookie: quickCookie } });
    const elapsed = performance.now() - started;
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('Request timed out after 0.2 seconds. The feed may be too large or the server is slow to respond.');
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(FEED_TIMEOUT_MS);
  });
});

describe('private hosts refused by default', () => {
  // Its own app (started in a hook, whose limit allows a busy machine's slow start).
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp();
  });
  afterAll(() => strict.close());

  it('refuses the loopback feed server when FEED_ALLOW_PRIVATE_HOSTS is not set', async () => {
    const c = await strict.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    const res = await strict.app.inject({ method: 'POST', url: `${base}/feed/test`, payload: { feedUrl: `${feedHost.origin}/feed.json` }, headers: { cookie: c } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('resolves to 127.0.0.1, a private, loopback or link-local address');
  });
});

describe('saved feed', () => {
  it('Save creates the feed active and due; the scheduler runs it and records the run', async () => {
    const res = await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}/feed.json`, updateFrequency: 'daily', fieldMapping: mapping });
    expect(res.statusCode).toBe(200);
    expect(res.json().feed).toMatchObject({ isActive: true, updateFrequency: 'daily', lastUpdated: null });
    await t.app.feeds.tick();
    const { feed, runs } = await feedState();
    expect(runs[0]).toMatchObject({ status: 'success', vehicleCount: 5, error: null });
    expect(feed!.lastUpdated).not.toBeNull();
    // Next run one day after the run finished.
    expect(new Date(feed!.nextRunAt!).getTime() - new Date(runs[0]!.finishedAt!).getTime()).toBe(86_400_000);
    expect(await inventory()).toMatchObject({ source: 'feed', summary: { totalUnits: 5 } });
  });

  it('a failing run is recorded and keeps the last good inventory', async () => {
    const before = await inventory();
    const save = await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}/error`, updateFrequency: 'hourly', fieldMapping: mapping });
    expect(save.statusCode).toBe(200);
    await t.app.feeds.tick();
    const { runs } = await feedState();
    expect(runs[0]).toMatchObject({ status: 'error', vehicleCount: null, error: 'HTTP 500: Internal Server Error' });
    expect(runs[1]).toMatchObject({ status: 'success' });
    expect(await inventory()).toEqual(before);
  });

  it('Pause stops scheduled runs and Resume restarts them', async () => {
    await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}/feed.json`, updateFrequency: 'hourly', fieldMapping: mapping });
    const paused = await call('PATCH', `${base}/feed`, { isActive: false });
    expect(paused.json().feed.isActive).toBe(false);
    const runsBefore = (await feedState()).runs.length;
    await t.app.feeds.tick();
    expect((await feedState()).runs.length).toBe(runsBefore);

    const resumed = await call('PATCH', `${base}/feed`, { isActive: true });
    expect(resumed.json().feed.isActive).toBe(true);
    await t.app.feeds.tick();
    const { runs } = await feedState();
    expect(runs.length).toBe(runsBefore + 1);
    expect(runs[0]!.status).toBe('success');
  });

  it('two schedulers racing for a due feed claim it once', async () => {
    await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}/feed.json`, updateFrequency: 'hourly', fieldMapping: mapping });
    const claims = await Promise.all([claimDueFeeds(t.database.db), claimDueFeeds(t.database.db), claimDueFeeds(t.database.db)]);
    expect(claims.flat()).toEqual([A]);
    // Claimed: not due again until the lease ends.
    expect(await claimDueFeeds(t.database.db)).toEqual([]);
  });

  it('refuses a bad frequency and a non-URL with messages naming the field', async () => {
    const res = await call('PUT', `${base}/feed`, { feedUrl: 'not a url', updateFrequency: 'weekly', fieldMapping: mapping });
    expect(res.statusCode).toBe(400);
    const message = res.json().error.message as string;
    expect(message).toContain('feedUrl');
    expect(message).toContain('updateFrequency');
  });
});

describe('manual upload while a feed is active', () => {
  const upload = (query = '') => {
    const { body, contentType } = multipartBody([{ filename: 'direct-array.json', data: readFileSync(path.resolve('tests/fixtures/inventory/direct-array.json')) }]);
    return t.app.inject({ method: 'POST', url: `${base}${query}`, payload: body, headers: { cookie, 'content-type': contentType } });
  };

  it('pauseFeed=true applies the upload and pauses the feed in one step, so no run replaces it', async () => {
    await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}/feed.json`, updateFrequency: 'hourly', fieldMapping: mapping });
    const res = await upload('?pauseFeed=true');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ feedPaused: true, inventory: { source: 'upload' } });
    expect((await feedState()).feed!.isActive).toBe(false);
    const runsBefore = (await feedState()).runs.length;
    await t.app.feeds.tick();
    expect((await feedState()).runs.length).toBe(runsBefore);
    expect(await inventory()).toMatchObject({ source: 'upload' });
  });

  it('without the flag the feed stays active; with it and no active feed nothing is paused', async () => {
    await call('PATCH', `${base}/feed`, { isActive: true });
    const res = await upload();
    expect(res.json().feedPaused).toBe(false);
    expect((await feedState()).feed!.isActive).toBe(true);
    await call('PATCH', `${base}/feed`, { isActive: false });
    expect((await upload('?pauseFeed=true')).json().feedPaused).toBe(false);
  });

  it('a run whose feed is paused while it fetches applies nothing', async () => {
    await call('PUT', `${base}/feed`, { feedUrl: `${feedHost.origin}/paused-meanwhile`, updateFrequency: 'hourly', fieldMapping: mapping });
    await upload();
    const before = await inventory();
    await t.app.feeds.tick();
    const { feed, runs } = await feedState();
    expect(feed!.isActive).toBe(false);
    expect(runs[0]).toMatchObject({ status: 'error', error: FEED_PAUSED_DURING_RUN });
    expect(await inventory()).toEqual(before);
  });

  it('refuses a pauseFeed value other than true or false', async () => {
    const res = await upload('?pauseFeed=yes');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^pauseFeed: /);
  });
});
