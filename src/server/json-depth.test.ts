/**
 * JSON nested deeper than MAX_JSON_DEPTH: refused with 400 and a message
 * naming the problem on every route that reads JSON (application/json bodies, text/plain tracking
 * beacons, inventory JSON files, inventory feeds, the platform import), and the server goes on
 * answering. Before, a 2,000,000-deep value in an inventory file answered 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createSignedInTestApp, type TestApp } from './test-app';
import { DEMO_DEALER } from './db/seed';
import { multipartBody } from '../../tests/fixtures/images';
import { startLocalServer, type LocalServer } from '../../tests/fixtures/http-server';
import { INVENTORY_TEXT, JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../domain/constants';
import { jsonTooDeep } from './validation';
import { EXPORT_FORMAT, EXPORT_VERSION } from './admin/platform';

const A = DEMO_DEALER.id;
const HOSTILE_DEPTH = 2_000_000;
/** `n` nested arrays around `inner`: '[[[1]]]' for n = 3. */
const nested = (n: number, inner = '1') => '['.repeat(n) + inner + ']'.repeat(n);
const deep = nested(HOSTILE_DEPTH);
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FIXTURES = path.resolve('tests/fixtures/inventory');

let t: TestApp;
let admin: string;
let manager: string;
let feedHost: LocalServer;

beforeAll(async () => {
  feedHost = await startLocalServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"vehicles":[{"Model":"Civic","Trim":${deep}}]}`));
  ({ t, cookie: admin } = await createSignedInTestApp('admin', { env: { FEED_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' } }));
  manager = await t.login('manager@hondaofdemo.com', 'manager123');
});
afterAll(async () => {
  await t.close();
  await feedHost.close();
});

const send = (method: 'POST' | 'PUT', url: string, payload: string | Buffer, cookie: string, contentType = 'application/json', headers: Record<string, string> = {}) =>
  t.app.inject({ method, url, payload, headers: { cookie, 'content-type': contentType, 'user-agent': BROWSER_UA, ...headers } });
const upload = (url: string, data: string | Buffer) => {
  const { body, contentType } = multipartBody([{ filename: 'inventory.json', data: Buffer.from(data), contentType: 'application/json' }]);
  return send('POST', url, body, manager, contentType);
};
const track = (payload: string, contentType: string) => send('POST', '/api/analytics/track', payload, '', contentType, { origin: 'https://www.hondaofdemo.com' });
const validBeacon = JSON.stringify({ dealerId: A, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: 'view-test-1' });

/** The server still answers ordinary requests after a refusal. */
async function expectServerAnswers() {
  expect((await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/configs`, headers: { cookie: manager } })).statusCode).toBe(200);
  expect((await track(validBeacon, 'text/plain;charset=UTF-8')).statusCode).toBe(204);
}

describe('jsonTooDeep', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}, arrays and objects alike`, () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep('{"a":'.repeat(MAX_JSON_DEPTH) + '1' + '}'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep(deep)).toBe(true);
    expect(jsonTooDeep('[' + '[]'.repeat(10_000) + ']')).toBe(false); // wide is fine
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(jsonTooDeep(JSON.stringify({ notes: '['.repeat(1000), quoted: '"{{{{'.repeat(100), slash: '\\'.repeat(3) + '['.repeat(100) }))).toBe(false);
    expect(jsonTooDeep(`["\\"", ${nested(MAX_JSON_DEPTH)}]`)).toBe(true);
  });

  it('accepts every inventory fixture (real documents nest a few levels)', () => {
    for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.json'))) expect(jsonTooDeep(readFileSync(path.join(FIXTURES, f), 'utf8')), f).toBe(false);
  });
});

describe(`a ${HOSTILE_DEPTH.toLocaleString('en-US')}-deep JSON value`, () => {
  it('in an inventory file: 400 on preview and apply (was 500), nothing stored', async () => {
    for (const doc of [`{"vehicles":[{"Model":${deep}}]}`, `{"vehicles":[{"Model":"Civic","Trim":${deep}}]}`, deep]) {
      for (const url of [`/api/dealers/${A}/inventory/preview`, `/api/dealers/${A}/inventory`]) {
        const res = await upload(url, doc);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toEqual({ code: 'INVALID', message: `${INVENTORY_TEXT.failed}: ${JSON_TOO_DEEP}`, fields: [] });
      }
    }
    expect((await t.app.inject({ method: 'GET', url: `/api/dealers/${A}/inventory`, headers: { cookie: manager } })).json().inventory).toBeNull();
    expect((await upload(`/api/dealers/${A}/inventory/preview`, readFileSync(path.join(FIXTURES, 'inventory-listofvehicles.json')))).statusCode).toBe(200);
    await expectServerAnswers();
  });

  it('in the platform import: 400 naming the problem', async () => {
    for (const doc of [deep, `{"format":"${EXPORT_FORMAT}","version":${EXPORT_VERSION},"manufacturers":[],"dealers":[],"users":[{"name":${deep}}]}`]) {
      const res = await send('POST', '/api/admin/import', doc, admin);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toEqual({ code: 'INVALID', message: JSON_TOO_DEEP, fields: [] });
    }
    await expectServerAnswers();
  });

  it('from an inventory feed: Test Feed answers 400 naming the problem', async () => {
    const res = await send('POST', `/api/dealers/${A}/inventory/feed/test`, JSON.stringify({ feedUrl: `${feedHost.origin}/feed.json` }), manager);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(`Feed did not return valid JSON (${JSON_TOO_DEEP})`);
    await expectServerAnswers();
  });

  it('in a 1 MB JSON body route: 413 for the whole value, 400 naming the problem for the deepest that fits', async () => {
    const fits = nested(400_000);
    const routes: Array<['POST' | 'PUT', string, (v: string) => string, string]> = [
      ['PUT', `/api/dealers/${A}/configs`, (v) => `{"modelMap":{"civic":${v}}}`, manager],
      ['PUT', `/api/admin/dealers/${A}/settings`, (v) => `{"branding":${v}}`, admin],
      ['POST', '/api/admin/manufacturers', (v) => `{"name":${v}}`, admin],
      ['PUT', `/api/dealers/${A}/inventory/feed`, (v) => `{"feedUrl":${v}}`, manager],
      ['POST', '/api/auth/login', (v) => `{"email":${v},"password":"x"}`, ''],
    ];
    for (const [method, url, body, cookie] of routes) {
      expect((await send(method, url, body(deep), cookie)).statusCode, url).toBe(413);
      const res = await send(method, url, body(fits), cookie);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error).toEqual({ code: 'INVALID', message: JSON_TOO_DEEP, fields: [] });
    }
    await expectServerAnswers();
  });

  it('in a tracking beacon (text/plain or JSON): 413 for the whole value, 400 naming the problem for the deepest that fits 4 KB', async () => {
    const beacon = (v: string) => `{"dealerId":"${A}","event":"impression","model":${v}}`;
    for (const contentType of ['text/plain;charset=UTF-8', 'application/json']) {
      expect((await track(beacon(deep), contentType)).statusCode).toBe(413);
      const res = await track(beacon(nested(1500)), contentType);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toEqual({ code: 'INVALID', message: JSON_TOO_DEEP, fields: [] });
    }
    await expectServerAnswers();
  });

  it('at the limit is parsed as usual: the schema, not the depth check, answers', async () => {
    const res = await send('PUT', `/api/dealers/${A}/configs`, `{"modelMap":{"civic":${nested(MAX_JSON_DEPTH - 2)}}}`, manager);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^modelMap\.civic: /);
  });
});
