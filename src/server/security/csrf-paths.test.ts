/**
 * The same-origin rule for changes holds however the path is spelt: every state-changing route,
 * reached through a generated set of spellings the router may decode or normalise (percent-encoded
 * characters, `//`, `/./`, `..%2f`, case, trailing slash, `;` parameters, overlong UTF-8, double
 * encoding), is refused from another origin with a signed-in admin's cookie, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { assets, dealers, users } from '../db/schema';
import { CROSS_SITE_REFUSED, STATE_CHANGING_METHODS } from './csrf';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.userCookie('admin', null);
});
afterAll(() => t.close());

/** A concrete path for a route pattern: the demo dealer for :dealerId, a fresh id for any other parameter. */
function concretePath(route: string): string {
  return route.replace(/:(\w+)/g, (_m, name: string) => (name === 'dealerId' ? DEMO_DEALER.id : randomUUID()));
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Spellings of one path that a router or a proxy might take for the same route. */
function pathSpellings(path: string): string[] {
  const out = new Set<string>();
  for (let i = 1; i < path.length; i++) {
    out.add(path.slice(0, i) + hex(path[i]!) + path.slice(i + 1)); // one character percent-encoded
    out.add(path.slice(0, i) + hex(path[i]!).toLowerCase() + path.slice(i + 1));
  }
  const slashes = [...path.matchAll(/\//g)].map((m) => m.index);
  for (const at of slashes) {
    out.add(`${path.slice(0, at)}//${path.slice(at + 1)}`);
    out.add(`${path.slice(0, at)}/./${path.slice(at + 1)}`);
    out.add(`${path.slice(0, at)}/x/..%2f${path.slice(at + 1)}`);
    out.add(`${path.slice(0, at)}/x/../${path.slice(at + 1)}`);
  }
  out.add(path.toUpperCase());
  out.add(path.replace('/api', '/API'));
  out.add(`${path}/`);
  out.add(`${path};jsessionid=1`);
  out.add(path.replace('/api/', '/api;x=1/'));
  out.add(path.replace('/api', '/%c1%a1pi')); // overlong UTF-8 'a'
  out.add(path.replace('/api/', '/api%c0%af')); // overlong UTF-8 '/'
  out.add(path.replace('/api', '/%2561pi')); // double-encoded 'a'
  out.add(`${path}?x=1`);
  out.add(`${path}#x`);
  out.add(`${path}%00`);
  return [...out];
}

describe('CSRF across path spellings', () => {
  it('refuses every spelling of every state-changing route from another origin; nothing is stored', async () => {
    const db = t.database.db;
    const counts = async () => [(await db.select().from(users)).length, (await db.select().from(assets)).length, (await db.select().from(dealers)).length];
    const before = await counts();
    const routes = t.app.routePolicies.filter((r) => STATE_CHANGING_METHODS.has(r.method) && r.url !== '/api/analytics/track');
    expect(routes.length).toBeGreaterThan(20);
    const unexpected: string[] = [];
    let tried = 0;
    for (const route of routes) {
      for (const url of pathSpellings(concretePath(route.url))) {
        for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site', origin: 'http://localhost:4000' }]) {
          tried++;
          const res = await t.app.inject({
            method: route.method as 'POST',
            url,
            headers: { cookie: admin, 'content-type': 'application/json', ...headers },
            payload: JSON.stringify({ email: `x${tried}@evil.example`, password: 'password123', role: 'admin', name: 'x' }),
          });
          // 400: a URL the router cannot decode; never routed, so nothing ran.
          const refused = res.statusCode === 403 ? res.json().error.message === CROSS_SITE_REFUSED : res.statusCode === 400;
          if (!refused) unexpected.push(`${route.method} ${url} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
    }
    expect(tried).toBeGreaterThan(1000);
    expect(unexpected).toEqual([]);
    expect(await counts()).toEqual(before);
  });

  it('the spellings reach routes: the encoded path creates a user when it comes from our own origin', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/%61pi/admin/users',
      headers: { cookie: admin, origin: 'http://localhost:3000' },
      payload: { email: 'encoded@example.com', password: 'password123', role: 'admin', name: 'Encoded' },
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('beacons stay open to dealer sites', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/analytics/track',
      headers: { origin: 'https://www.hondaofdemo.com', 'content-type': 'text/plain' },
      payload: JSON.stringify({ dealerId: DEMO_DEALER.id, event: 'impression', type: 'header', model: 'civic', url: 'https://www.hondaofdemo.com/new-inventory?model=civic', pv: 'csrf-paths-1' }),
    });
    expect(res.statusCode).toBe(204);
  });
});
