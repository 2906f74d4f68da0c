/**
 * Two apps in one process (as tests build, or a process serving two configurations) keep their
 * own state: what the metrics count and what the public endpoints' policy works out from
 * PUBLIC_ORIGIN belong to the app, never to a module both share. Both apps here run on one
 * database with different configurations, through the interface operators and dealer sites use.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { loadConfig } from './config';
import { DEMO_DEALER } from './db/seed';
import { openTestDatabase } from './test-app';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const TOKEN = 'isolation-metrics-token-0123456789';
const BANNER = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header`;

let database: Awaited<ReturnType<typeof openTestDatabase>>;
/** PUBLIC_ORIGIN on loopback: the dealer's requireHttps does not apply (local development). */
let local: FastifyInstance;
/** A public deployment: plain HTTP to a dealer that requires HTTPS is refused. */
let deployed: FastifyInstance;

const build = (publicOrigin: string) =>
  buildApp({
    config: loadConfig({
      FEED_SCHEDULER_INTERVAL_MS: '0',
      NOTIFICATION_INTERVAL_MS: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      PUBLIC_ORIGIN: publicOrigin,
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: 'silent',
      WEB_DIST_DIR: path.resolve('dist/web'),
      EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js'),
    }),
    db: database.db,
    logger: false,
  });

/** The app's Prometheus text, as a scrape reads it. */
async function scrape(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** The value of one sample line (`name{labels} value`), or undefined when the app has none. */
const sample = (text: string, line: string): number | undefined => {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
};

beforeAll(async () => {
  database = await openTestDatabase({ seeded: true });
  local = await build('http://localhost:3000');
  deployed = await build('https://banners.example.com');
});
afterAll(async () => {
  await local?.close();
  await deployed?.close();
  await database?.dispose();
});

describe('two apps in one process', () => {
  it('each applies its own PUBLIC_ORIGIN to plain-HTTP banner requests of a dealer that requires HTTPS', async () => {
    const get = (app: FastifyInstance) => app.inject({ url: BANNER, headers: { 'user-agent': UA } });
    expect((await get(local)).statusCode).toBe(200);
    const refused = await get(deployed);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toBe('HTTPS is required for this dealer');
    expect((await get(local)).statusCode).toBe(200); // the other app's answer did not become this one's
  });

  it('counts cache lookups and banner encodings in the app that made them only', async () => {
    const before = await scrape(deployed);
    // Served by `local` only: its dealer, choice and bytes are looked up (and the banner encoded once).
    for (let i = 0; i < 3; i++) expect((await local.inject({ url: `${BANNER}&variant=mobile`, headers: { 'user-agent': UA } })).statusCode).toBe(200);
    const mine = await scrape(local);
    expect(sample(mine, 'dcb_cache_lookups_total{cache="bytes",result="hit"}')).toBeGreaterThanOrEqual(2);
    expect(sample(mine, 'dcb_cache_lookups_total{cache="dealer",result="hit"}')).toBeGreaterThanOrEqual(2);
    const encoded = mine.split('\n').filter((l) => l.startsWith('dcb_banner_encodings_total{'));
    expect(encoded.length).toBeGreaterThan(0);
    const theirs = await scrape(deployed);
    for (const line of ['dcb_cache_lookups_total{cache="bytes",result="hit"}', 'dcb_cache_lookups_total{cache="dealer",result="hit"}']) {
      expect(sample(theirs, line)).toBe(sample(before, line));
    }
    expect(theirs.split('\n').filter((l) => l.startsWith('dcb_banner_encodings_total{'))).toEqual(before.split('\n').filter((l) => l.startsWith('dcb_banner_encodings_total{')));
    expect(sample(theirs, 'dcb_cache_lookups_total{cache="bytes",result="hit"}')).toBeUndefined();
  });
});
