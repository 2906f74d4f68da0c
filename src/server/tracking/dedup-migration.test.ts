/**
 * Migration 0006_event_dedup_privacy on a database that already holds events: duplicate
 * impressions (same dealer, page view and slot type) and conversions (same dealer and page view)
 * are removed, the oldest kept, and taken off the hourly rollups; the unique indexes are then
 * built; dealers without the Do-Not-Track setting get it on, an explicit choice is kept.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';

const before = databaseBeforeHooks('0006_event_dedup_privacy');
const { rows } = before;

describe('migration 0006_event_dedup_privacy', () => {
  it('removes duplicate impressions and conversions, corrects the rollups, builds the unique indexes and turns Do-Not-Track on', async () => {
    const d = DEMO_DEALER.id;
    const at = "'2026-11-10T09:30:00Z'";
    const ev = (event: string, slot: string | null, pv: string | null, model = 'civic') =>
      `('${d}', '${event}', ${slot === null ? 'NULL' : `'${slot}'`}, '${model}', ${at}, ${pv === null ? 'NULL' : `'${pv}'`})`;
    await before.database.db.execute(
      sql.raw(`INSERT INTO events (dealer_id, event, slot_type, model, occurred_at, page_view) VALUES
        ${[
          ev('impression', 'header', 'view-1'),
          ev('impression', 'header', 'view-1'), // duplicate
          ev('impression', 'header', 'view-1'), // duplicate
          ev('impression', 'primary', 'view-1'),
          ev('impression', 'header', 'view-2'),
          ev('impression', 'header', null), // no page view (an old row): kept
          ev('impression', 'header', null),
          ev('click', 'header', 'view-1'),
          ev('conversion', null, 'view-1'),
          ev('conversion', null, 'view-1'), // duplicate
          ev('conversion', null, null),
          ev('conversion', null, null),
        ].join(',\n')}`),
    );
    await writeHourlyRollups(before.database, 'dealer_id, hour, model, slot_type, impressions, clicks, conversions', [
      `('${d}', '2026-11-10T09:00:00Z', 'civic', 'header', 6, 1, 0)`,
      `('${d}', '2026-11-10T09:00:00Z', 'civic', 'primary', 1, 0, 0)`,
      `('${d}', '2026-11-10T09:00:00Z', 'civic', '', 0, 0, 4)`,
    ]);
    await before.database.db.execute(sql.raw(`UPDATE dealers SET security = security - 'respectDoNotTrack'`));
    await before.database.db.execute(
      sql.raw(`INSERT INTO dealers (id, name, manufacturer_id, website_url, provider, status, asset_storage, configs, fallback_assets, branding, security, notifications)
        SELECT 'opted-out', 'Opted Out', manufacturer_id, website_url, provider, status, asset_storage, configs, fallback_assets, branding,
          security || '{"respectDoNotTrack": false}'::jsonb, notifications FROM dealers WHERE id = '${d}'`),
    );

    await before.database.migrate();

    const counts = await rows<{ event: string; slot_type: string | null; page_view: string | null; n: number | string }>(
      sql.raw(`SELECT event, slot_type, page_view, count(*) AS n FROM events GROUP BY 1, 2, 3 ORDER BY event::text, 2, 3`),
    );
    expect(counts.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([
      { event: 'click', slot_type: 'header', page_view: 'view-1', n: 1 },
      { event: 'conversion', slot_type: null, page_view: 'view-1', n: 1 },
      { event: 'conversion', slot_type: null, page_view: null, n: 2 },
      { event: 'impression', slot_type: 'header', page_view: 'view-1', n: 1 },
      { event: 'impression', slot_type: 'header', page_view: 'view-2', n: 1 },
      { event: 'impression', slot_type: 'header', page_view: null, n: 2 },
      { event: 'impression', slot_type: 'primary', page_view: 'view-1', n: 1 },
    ]);
    const rollups = await rows<{ slot_type: string; impressions: number; clicks: number; conversions: number }>(
      sql.raw(`SELECT slot_type, impressions, clicks, conversions FROM event_rollups_hourly ORDER BY slot_type`),
    );
    expect(rollups).toEqual([
      { slot_type: '', impressions: 0, clicks: 0, conversions: 3 },
      { slot_type: 'header', impressions: 4, clicks: 1, conversions: 0 },
      { slot_type: 'primary', impressions: 1, clicks: 0, conversions: 0 },
    ]);
    // Counting once is enforced by event_keys since migration 0014 (partitions.test.ts), no longer by indexes on events.
    const security = await rows<{ id: string; dnt: boolean }>(sql.raw(`SELECT id, (security ->> 'respectDoNotTrack')::boolean AS dnt FROM dealers ORDER BY id`));
    expect(security).toEqual([
      { id: d, dnt: true },
      { id: 'opted-out', dnt: false },
    ]);
  });
});
