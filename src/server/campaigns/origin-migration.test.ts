/**
 * Migration 0027_asset_origin on a database that already holds campaign creatives: a creative
 * older than its campaign can only have been chosen from the dealer's assets ('library'); one
 * created since is taken as uploaded into it ('campaign'); assets outside campaigns are 'library'.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { databaseBeforeHooks } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';

const before = databaseBeforeHooks('0027_asset_origin');

describe('migration 0027_asset_origin', () => {
  it('marks creatives created since their campaign as uploaded into it, and every other asset as the library\'s', async () => {
    const d = DEMO_DEALER.id;
    const campaign = '00000000-0000-4000-8000-000000000001';
    await before.database.db.execute(
      sql.raw(`INSERT INTO campaigns (id, dealer_id, name, mode, status, starts_at, created_at, updated_at)
        VALUES ('${campaign}', '${d}', 'Spring', 'takeover', 'draft', '2027-03-01T00:00:00Z', '2027-02-10T00:00:00Z', '2027-02-10T00:00:00Z')`),
    );
    const asset = (n: number, createdAt: string, campaignId: string | null) =>
      `('00000000-0000-4000-8000-00000000010${n}', '${d}', 'a${n}.jpg', 'header', 'civic', 'civic', 'sport', '2026', 'honda', 'image/jpeg', 10, 1920, 300, '{}'::jsonb, '${createdAt}', ${campaignId ? `'${campaignId}'` : 'NULL'})`;
    await before.database.db.execute(
      sql.raw(`INSERT INTO assets (id, dealer_id, name, type, model, model_key, trim, year, manufacturer, mime_type, size_bytes, width, height, parsed_metadata, created_at, campaign_id) VALUES
        ${[asset(1, '2027-01-05T00:00:00Z', campaign), asset(2, '2027-02-11T00:00:00Z', campaign), asset(3, '2027-02-12T00:00:00Z', null)].join(',\n')}`),
    );
    await before.database.migrate();
    const rows = await before.rows<{ name: string; origin: string }>(sql`SELECT name, origin FROM assets WHERE dealer_id = ${d} AND name LIKE 'a_.jpg' ORDER BY name`);
    expect(rows).toEqual([
      { name: 'a1.jpg', origin: 'library' },
      { name: 'a2.jpg', origin: 'campaign' },
      { name: 'a3.jpg', origin: 'library' },
    ]);
  });
});
