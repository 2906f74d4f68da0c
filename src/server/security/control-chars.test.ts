/**
 * Control characters in a public URL (security/control-chars.ts): every public route, the banner
 * route over HTTP too, answers 400 INVALID naming the part, before any database query, with one
 * warn line and no error line in the log.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { controlCharacterPart } from './control-chars';

const A = DEMO_DEALER.id;
let t: TestApp;
let origin: string;
const lines: { level: number; msg: string }[] = [];
/** Every statement the app sends to the database (PGlite or the pg pool), counted at the driver. */
let queries = 0;

beforeAll(async () => {
  t = await createTestApp({ logStream: { write: (line) => void lines.push(JSON.parse(line) as { level: number; msg: string }) } });
  const client = (t.app.db as unknown as { $client: Record<'query' | 'exec', (...args: unknown[]) => unknown> }).$client;
  for (const method of ['query', 'exec'] as const) {
    if (typeof client[method] !== 'function') continue;
    const original = client[method].bind(client);
    vi.spyOn(client, method).mockImplementation((...args: unknown[]) => {
      queries += 1;
      return original(...args);
    });
  }
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

const beacon = JSON.stringify({ dealerId: A, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/', pv: 'view-cc-1' });

/** [method, url, body, the part the message must name] per public route. */
const BAD: [string, string, string | undefined, RegExp][] = [
  ['GET', '/api/scripts/%00/asset', undefined, /path parameter dealerId/],
  ['GET', `/api/scripts/${A}%0a/asset?model=civic&type=header`, undefined, /path parameter dealerId/],
  ['GET', `/api/scripts/${A}/asset?model=civic%00&type=header`, undefined, /query parameter model/],
  ['GET', `/api/scripts/${A}/asset?model=civic&type=header&%7F=1`, undefined, /query parameter name "%7F"/],
  ['GET', `/api/scripts/${A}/asset%1f?model=civic`, undefined, /path segment 4/],
  ['GET', '/scripts/dc-banners-%00.js', undefined, /path parameter file/],
  ['GET', `/scripts/dc-banners-${A}.js?v=%0D%0A`, undefined, /query parameter v/],
  ['POST', '/api/analytics/track?x=%00', beacon, /query parameter x/],
  ['POST', '/api/analytics/track%00', beacon, /path segment 3/],
  ['POST', '/api/client-errors?%09', JSON.stringify({ message: 'Boom', url: 'http://localhost/x' }), /query parameter name "%09"/],
  ['GET', '/api/auth/me?next=%08', undefined, /query parameter next/],
  ['GET', '/api/no-such-route%00', undefined, /path segment 2/],
];

describe('control characters in a public URL', () => {
  it('counts queries (the spy sees a lookup of an unknown dealer)', async () => {
    const before = queries;
    expect((await t.app.inject({ method: 'GET', url: '/api/scripts/spy-check/asset?model=civic' })).statusCode).toBe(404);
    expect(queries).toBeGreaterThan(before);
  });

  it.each(BAD)('%s %s is a 400 naming the part, with no query and one warn line', async (method, url, body, part) => {
    const [queriesBefore, linesBefore] = [queries, lines.length];
    const res = await t.app.inject({ method: method as 'GET' | 'POST', url, payload: body, headers: body ? { 'content-type': 'text/plain' } : {} });
    expect(res.statusCode).toBe(400);
    const error = res.json<{ error: { code: string; message: string } }>().error;
    expect(error.code).toBe('INVALID');
    expect(error.message).toMatch(part);
    expect(error.message).toMatch(/control character/);
    expect(queries).toBe(queriesBefore);
    const logged = lines.slice(linesBefore);
    expect(logged.filter((l) => l.level === 40)).toHaveLength(1);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('refuses a raw control character as well as an encoded one', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/scripts/${A}/asset?model=civ\u0001ic&type=header` });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: { message: string } }>().error.message).toMatch(/query parameter model/);
  });

  it('leaves text that only looks encoded alone (%2500 is the text %00)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/scripts/${A}/asset?model=civic%2500&type=header` });
    expect(res.statusCode).toBe(404); // a model the dealer does not have, not a refused URL
    expect(controlCharacterPart('/a/%2500?x=%25%30%30')).toBeNull();
  });

  it('refuses it over HTTP too, before a banner request reads the dealer or the database', async () => {
    const good = `${origin}/api/scripts/${A}/asset?model=civic&type=header`;
    expect((await fetch(good)).status).toBe(200); // dealer, choice and bytes cached
    const [queriesBefore, linesBefore] = [queries, lines.length];
    const res = await fetch(`${good}&ref=%00`); // a parameter the schema ignores: only the control character check refuses it
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/query parameter ref/);
    expect(queries).toBe(queriesBefore);
    const logged = lines.slice(linesBefore);
    expect(logged.filter((l) => l.level === 40)).toHaveLength(1);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  });
});
