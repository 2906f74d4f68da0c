/**
 * Migration 0025_event_dealer_key on a database that already holds events: every dealer gets its
 * own integer key and every event of an existing dealer is kept, column for column, carrying that
 * key instead of the text id, without its lead id (the lead's key in event_keys stays), with its
 * device (migration 0024), and so are the dealer hours and days, per device, which the rollup
 * triggers then keep equal to the hourly rows; the events
 * of a dealer deleted and not yet purged are not copied, and its purge then completes. The dealer
 * day index is on the day alone. Afterwards the same dealer's beacons are stored under its key.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { purgeDeletedDealers } from '../maintenance/dealer-purge';
import pino from 'pino';
import { EventIngestor } from '../tracking/service';

const d = DEMO_DEALER.id;
const GONE = 'gone-before-keys';

const before = databaseBeforeHooks('0025_event_dealer_key', async (database) => {
  await database.db.execute(sql.raw(`SELECT event_partitions_ensure('2026-03-01T00:00:00Z', '2026-03-10T00:00:00Z')`));
  await database.db.execute(sql.raw(`INSERT INTO event_urls (url) VALUES ('https://www.example.com/new/?model=civic')`));
  await database.db.execute(
    sql.raw(`INSERT INTO events (occurred_at, event, url_id, dealer_id, slot_type, model, page_view, lead_id, creative, device) VALUES
      ('2026-03-01T00:10:00Z', 'impression', 1, '${d}', 'header', 'civic', 'view-0001', NULL, 'cdn', 'mobile'),
      ('2026-03-01T00:11:00Z', 'click', 1, '${d}', 'header', 'civic', 'view-0001', NULL, 'cdn', 'mobile'),
      ('2026-03-01T00:20:00Z', 'conversion', NULL, '${d}', NULL, 'civic', 'view-0001', 'abc123', 'cdn', 'desktop'),
      ('2026-03-08T05:00:00Z', 'impression', NULL, '${d}', 'primary', 'accord', NULL, NULL, NULL, 'unknown'),
      ('2026-03-02T06:00:00Z', 'impression', NULL, '${GONE}', 'header', 'civic', 'view-gone', NULL, 'cdn', 'mobile')`),
  );
  await database.db.execute(sql.raw(`INSERT INTO event_keys (dealer_id, kind, key, slot_type, at) VALUES ('${d}', 'lead', 'abc123', '', '2026-03-01T00:20:00Z')`));
  // Their hourly rollups: the triggers write the dealer hours and days (keyed by the text id before 0025).
  await writeHourlyRollups(database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', [
    `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'mobile', 1, 1, 0)`,
    `('${d}', '2026-03-01T00:00:00Z', 'civic', '', 'cdn', 'desktop', 0, 0, 1)`,
    `('${d}', '2026-03-08T05:00:00Z', 'accord', 'primary', '', 'unknown', 1, 0, 0)`,
  ]);
  await database.db.execute(sql.raw(`INSERT INTO dealer_purges (dealer_id, deleted_at) VALUES ('${GONE}', '2026-03-03T00:00:00Z')`));
});
const { rows } = before;

/** The dealer hours and days as `<dealer> <hour or day> <device> i/c/v`, the dealer named through its key. */
const dealerRollups = async () => {
  const hours = await rows<Record<string, unknown>>(sql`
    SELECT d.id AS dealer, to_char(r.hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS at, r.device::text AS device, r.impressions, r.clicks, r.conversions
    FROM dealer_rollups_hourly r JOIN dealers d ON d.key = r.dealer_key ORDER BY 2, 3`);
  const days = await rows<Record<string, unknown>>(sql`
    SELECT d.id AS dealer, to_char(r.day, 'YYYY-MM-DD') AS at, r.device::text AS device, r.impressions, r.clicks, r.conversions
    FROM dealer_rollups_daily r JOIN dealers d ON d.key = r.dealer_key ORDER BY 2, 3`);
  const text = (x: Record<string, unknown>) =>
    `${String(x.dealer)} ${String(x.at)} ${String(x.device)} ${countsText(x)}`;
  return { hours: hours.map(text), days: days.map(text) };
};

describe('migration 0025 event dealer key', () => {
  it("gives every dealer a key and keeps each existing dealer's events under it, without the lead id", async () => {
    const keys = await rows<{ id: string; key: number }>(sql`SELECT id, key FROM dealers ORDER BY id`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => Number.isInteger(Number(k.key)))).toBe(true);
    expect(new Set(keys.map((k) => Number(k.key))).size).toBe(keys.length);
    const stored = await rows<Record<string, unknown>>(sql`
      SELECT to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS at, e.event::text AS event, d.id AS dealer, e.slot_type, e.model,
        (SELECT url FROM event_urls WHERE id = e.url_id) AS url, e.page_view, e.creative, e.device::text AS device
      FROM events e LEFT JOIN dealers d ON d.key = e.dealer_key ORDER BY e.occurred_at`);
    const url = 'https://www.example.com/new/?model=civic';
    expect(stored).toEqual([
      { at: '2026-03-01T00:10', event: 'impression', dealer: d, slot_type: 'header', model: 'civic', url, page_view: 'view-0001', creative: 'cdn', device: 'mobile' },
      { at: '2026-03-01T00:11', event: 'click', dealer: d, slot_type: 'header', model: 'civic', url, page_view: 'view-0001', creative: 'cdn', device: 'mobile' },
      { at: '2026-03-01T00:20', event: 'conversion', dealer: d, slot_type: null, model: 'civic', url: null, page_view: 'view-0001', creative: 'cdn', device: 'desktop' },
      { at: '2026-03-08T05:00', event: 'impression', dealer: d, slot_type: 'primary', model: 'accord', url: null, page_view: null, creative: null, device: 'unknown' },
    ]);
    const columns = await rows<{ column_name: string }>(
      sql`SELECT column_name FROM information_schema.columns WHERE table_name = 'events' AND table_schema = current_schema() ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => c.column_name)).toEqual(['occurred_at', 'event', 'url_id', 'dealer_key', 'device', 'slot_type', 'model', 'page_view', 'creative']);
    // The lead stays counted once by its key.
    expect(await rows(sql`SELECT key FROM event_keys WHERE kind = 'lead'`)).toEqual([{ key: 'abc123' }]);
  });

  it('keeps the dealer hours and days per device under the dealer key, and the triggers keep them equal to the hourly rows', async () => {
    expect(await dealerRollups()).toEqual({
      hours: [`${d} 2026-03-01T00 desktop 0/0/1`, `${d} 2026-03-01T00 mobile 1/1/0`, `${d} 2026-03-08T05 unknown 1/0/0`],
      days: [`${d} 2026-03-01 desktop 0/0/1`, `${d} 2026-03-01 mobile 1/1/0`, `${d} 2026-03-08 unknown 1/0/0`],
    });
    const pk = await rows<{ def: string }>(
      sql`SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE c.contype = 'p' AND t.relname IN ('dealer_rollups_hourly', 'dealer_rollups_daily') AND t.relnamespace = current_schema()::regnamespace ORDER BY t.relname`,
    );
    expect(pk.map((p) => p.def)).toEqual(['PRIMARY KEY (dealer_key, day, device)', 'PRIMARY KEY (dealer_key, hour, device)']);
    // The ingestion's upsert (one row raised, one new), then a corrective delete.
    await writeHourlyRollups(before.database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', [
      `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'mobile', 2, 0, 0)`,
      `('${d}', '2026-03-08T06:00:00Z', 'pilot', 'upsell', '', 'desktop', 4, 0, 0)`,
    ], { upsert: true });
    await before.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE slot_type = ''`));
    expect(await dealerRollups()).toEqual({
      hours: [`${d} 2026-03-01T00 desktop 0/0/0`, `${d} 2026-03-01T00 mobile 3/1/0`, `${d} 2026-03-08T05 unknown 1/0/0`, `${d} 2026-03-08T06 desktop 4/0/0`],
      days: [`${d} 2026-03-01 desktop 0/0/0`, `${d} 2026-03-01 mobile 3/1/0`, `${d} 2026-03-08 desktop 4/0/0`, `${d} 2026-03-08 unknown 1/0/0`],
    });
  });

  it("drops a deleted dealer's events, whose purge then completes; indexes the dealer days by day alone", async () => {
    expect(await rows(sql`SELECT dealer_id, dealer_key FROM dealer_purges`)).toEqual([{ dealer_id: GONE, dealer_key: null }]);
    expect(await purgeDeletedDealers(before.database.db, { graceMs: 0, now: new Date('2026-03-04T00:00:00Z') })).toMatchObject({ dealers: 1, events: 0 });
    expect(await rows(sql`SELECT 1 FROM dealer_purges`)).toEqual([]);
    const index = await rows<{ def: string }>(sql`SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'dealer_rollups_daily_day_idx' AND schemaname = current_schema()`);
    expect(index.map((i) => i.def.replace(/^.* USING /, ''))).toEqual(['btree (day)']);
  });

  it("stores the dealer's new beacons under its key and refuses an unknown dealer's", async () => {
    const ingestor = new EventIngestor(before.database.db, pino({ level: 'silent' }), { retryMinMs: 5, retryMaxMs: 20, flushIntervalMs: 5 });
    const at = new Date('2026-03-09T10:00:00Z');
    const beacon = (dealerId: string, pageView: string) => ({
      dealerId,
      event: 'impression' as const,
      slotType: 'header' as const,
      model: 'pilot',
      url: '',
      occurredAt: at,
      pageView,
      device: 'mobile' as const,
    });
    expect(ingestor.enqueue(beacon(d, 'view-after'))).toBe(true);
    // A straggler of the dealer purged above: no key, so its NOT NULL refuses it (dead-lettered).
    expect(ingestor.enqueue(beacon(GONE, 'view-straggler'))).toBe(true);
    await ingestor.close();
    const stored = await rows<{ dealer: string; pv: string; device: string }>(
      sql`SELECT d.id AS dealer, e.page_view AS pv, e.device::text AS device FROM events e JOIN dealers d ON d.key = e.dealer_key WHERE e.model = 'pilot'`,
    );
    expect(stored).toEqual([{ dealer: d, pv: 'view-after', device: 'mobile' }]);
    // Rolled up under the dealer's key and its device.
    expect((await dealerRollups()).hours).toContain(`${d} 2026-03-09T10 mobile 1/0/0`);
    expect(await rows(sql`SELECT count(*)::int AS n FROM events WHERE model = 'pilot'`)).toEqual([{ n: 1 }]);
    const dead = await rows<{ dealer_id: string }>(sql`SELECT dealer_id FROM event_dead_letters`);
    expect(dead).toEqual([{ dealer_id: GONE }]);
  });
});
