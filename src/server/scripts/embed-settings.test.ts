/**
 * The two dealer settings the embed script reads, over HTTP: dataLayer events (on by default) and
 * what a slot without a creative does ('placeholder' by default, or 'hide'). Saved and validated
 * by the configs routes (a dealer-manager edits, a viewer reads), carried in the served script's
 * configuration and the Script page's inline snippet, raising the dealer's version; and the image
 * endpoint names its creative where a page's script can read it (Server-Timing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';
import { dealers } from '../db/schema';
import { embeddedConfig } from './service';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

let t: TestApp;
let cookie: string;
const A = DEMO_DEALER.id;
const base = `/api/dealers/${A}`;
const scriptUrl = `/scripts/dc-banners-${A}.js`;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager'));
  // No CDN auto-discovery: which slots have a creative depends on uploads alone.
  await t.database.db.execute(sql`UPDATE dealers SET asset_storage = asset_storage || '{"baseUrl": ""}'::jsonb WHERE id = ${A}`);
});
afterAll(() => t.close());

const get = (url: string, c = cookie) => t.app.inject({ method: 'GET', url, headers: { cookie: c } });
const put = (payload: object, c = cookie) => t.app.inject({ method: 'PUT', url: `${base}/configs`, payload, headers: { cookie: c } });
const scriptConfig = async () => embeddedConfig((await t.app.inject({ method: 'GET', url: scriptUrl })).body);
/** The configuration of the inline snippet in the Script page's tag. */
async function snippetConfig(): Promise<{ k: string; b?: Record<string, string> }> {
  const tag = (await get(`${base}/script`)).json().scriptTag as string;
  const start = tag.indexOf('{"s":');
  expect(start).toBeGreaterThan(0);
  // The configuration object ends where its braces balance (it holds no braces in strings).
  let depth = 0;
  for (let i = start; ; i++) {
    if (tag[i] === '{') depth++;
    else if (tag[i] === '}' && --depth === 0) return JSON.parse(tag.slice(start, i + 1));
  }
}
async function version() {
  const [row] = await t.database.db.select({ v: dealers.version }).from(dealers).where(eq(dealers.id, A));
  return row!.v;
}
async function upload(filename: string, width: number, height: number) {
  const { body, contentType } = multipartBody([{ filename, data: await makeBanner(width, height) }]);
  const res = await t.app.inject({ method: 'POST', url: `${base}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  expect(res.json().results[0].ok, res.body).toBe(true);
}

describe('embed settings', () => {
  it('read as their defaults, also for a dealer row stored before they existed', async () => {
    await t.database.db.execute(sql`UPDATE dealers SET configs = configs - 'dataLayerEvents' - 'emptySlots' WHERE id = ${A}`);
    expect((await get(`${base}/configs`)).json()).toMatchObject({ dataLayerEvents: true, emptySlots: 'placeholder' });
    const config = await scriptConfig();
    expect(config.dataLayer).toBe(true);
    expect(config.bare).toBeUndefined();
    expect((await snippetConfig()).b).toBeUndefined();
  });

  it('turns the dataLayer events off: saved, in the script, the version raised', async () => {
    const v0 = await version();
    const res = await put({ dataLayerEvents: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().dataLayerEvents).toBe(false);
    expect(await version()).toBe(v0 + 1);
    expect((await get(`${base}/configs`)).json().dataLayerEvents).toBe(false);
    expect((await scriptConfig()).dataLayer).toBe(false);
    expect((await put({ dataLayerEvents: true })).statusCode).toBe(200);
    expect((await scriptConfig()).dataLayer).toBe(true);
  });

  it('hides slots without a creative: the script and the snippet list them, an upload takes its slot off', async () => {
    const v0 = await version();
    expect((await put({ emptySlots: 'hide' })).statusCode).toBe(200);
    expect(await version()).toBe(v0 + 1);
    const before = await scriptConfig();
    // No dealer asset, no fallback, no CDN: every slot of every page model is bare.
    const keys = (await snippetConfig()).k.split('|');
    expect(Object.keys(before.bare!).sort()).toEqual([...keys].sort());
    expect(new Set(Object.values(before.bare!))).toEqual(new Set(['hpu']));
    expect((await snippetConfig()).b).toEqual(before.bare);

    await upload('new_2025_honda_pilot_touring_1920x300.jpg', 1920, 300);
    const after = await scriptConfig();
    // Header and primary now show it (a creative of another shape is shown whole); the upsell
    // slot shows another model, still without one.
    expect(after.bare!.pilot).toBe('u');
    expect(after.bare!.civic).toBe('hpu');
    expect((await snippetConfig()).b).toEqual(after.bare);
    // The image endpoint agrees: the pilot header is the asset, the civic header the placeholder.
    const header = (model: string) => t.app.inject({ method: 'GET', url: `/api/scripts/${A}/asset?model=${model}&type=header&variant=desktop` });
    expect((await header('pilot')).headers['x-banner-source']).toBe('asset');
    expect((await header('civic')).headers['x-banner-source']).toBe('placeholder');
  });

  it('goes back to placeholders: the script lists no bare slot', async () => {
    expect((await put({ emptySlots: 'placeholder' })).statusCode).toBe(200);
    expect((await scriptConfig()).bare).toBeUndefined();
    expect((await snippetConfig()).b).toBeUndefined();
  });

  it('refuses values outside the settings and changes nothing', async () => {
    const before = (await get(`${base}/configs`)).json();
    const wrongMode = await put({ emptySlots: 'collapse' });
    expect(wrongMode.statusCode).toBe(400);
    expect(wrongMode.body).toContain('emptySlots');
    expect((await put({ dataLayerEvents: 'yes' })).statusCode).toBe(400);
    expect((await get(`${base}/configs`)).json()).toEqual(before);
  });

  it('lets a viewer read them but not change them', async () => {
    const viewer = await t.login(DEMO_ACCOUNTS[2]!.email, DEMO_ACCOUNTS[2]!.password);
    const read = await get(`${base}/configs`, viewer);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ dataLayerEvents: true, emptySlots: 'placeholder' });
    expect((await put({ emptySlots: 'hide' }, viewer)).statusCode).toBe(403);
    expect((await get(`${base}/configs`)).json().emptySlots).toBe('placeholder');
  });

  it('names the creative of a banner image in Server-Timing, readable by any page', async () => {
    for (const model of ['pilot', 'civic']) {
      const url = `/api/scripts/${A}/asset?model=${model}&type=header&variant=desktop&v=1`;
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['server-timing']).toBe(`creative;desc="${res.headers['x-banner-creative'] as string}"`);
      expect(res.headers['timing-allow-origin']).toBe('*');
      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': res.headers.etag as string } });
      expect(again.statusCode).toBe(304);
      expect(again.headers['server-timing']).toBe(res.headers['server-timing']);
    }
  });
});
