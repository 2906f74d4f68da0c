/**
 * Migration 0026_rollup_details on a database that already holds detailed daily rollups: every row
 * of event_rollups_daily is kept with the same counts, now under the dealer's key and the id of its
 * (model, slot type, creative) in rollup_details, so the reporting module reads the same figures
 * before and after; the rollup triggers then keep the detailed days equal to the hourly rows
 * (ingestion's upsert, a corrective delete, new details), and the retention job still prunes the
 * days past DETAIL_DAILY_DAYS without the day index.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { countsText, databaseBeforeHooks, writeHourlyRollups } from '../db/migration-fixture';
import { DEMO_DEALER } from '../db/seed';
import { dailyByModel, pruneHourlyRollups, ranked, totals } from './service';

const d = DEMO_DEALER.id;
/** Whole UTC days 2026-03-01 to 2026-03-08: read from the detailed days only. */
const WINDOW = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-09T00:00:00Z') };

/** The detailed days as `<dealer> <day> <model> <slot> <creative> <device> i/c/v`, given the SQL naming them. */
const detailedDays = async (query: ReturnType<typeof sql>) =>
  (await rows<Record<string, unknown>>(query)).map(
    (x) =>
      `${String(x.dealer)} ${String(x.day)} ${String(x.model)} ${String(x.slot)} ${String(x.creative)} ${String(x.device)} ${countsText(x)}`,
  );
const daysAfter = () =>
  detailedDays(sql`
    SELECT k.id AS dealer, to_char(r.day, 'YYYY-MM-DD') AS day, x.model, x.slot_type AS slot, x.creative, r.device::text AS device, r.impressions, r.clicks, r.conversions
    FROM event_rollups_daily r JOIN dealers k ON k.key = r.dealer_key JOIN rollup_details x ON x.id = r.detail_id
    ORDER BY 1, 2, 3, 4, 5, 6`);

/** What the screens read of the window: the totals, the models, the creatives by slot, the days by model. */
const screens = async () => {
  const scope = { dealerId: d };
  return {
    totals: await totals(before.database.db, scope, WINDOW),
    mobile: await totals(before.database.db, { dealerId: d, device: 'mobile' }, WINDOW),
    models: await ranked(before.database.db, scope, ['model'], WINDOW, 2),
    creatives: await ranked(before.database.db, scope, ['creative', 'slot_type'], WINDOW, 10),
    days: await dailyByModel(before.database.db, scope, WINDOW, 2),
  };
};

let daysBefore: string[];
/** The window's totals summed from the old table (the reporting module reads the new one). */
let totalsBefore: Record<string, unknown>[];

const before = databaseBeforeHooks('0026_rollup_details', async (database) => {
  // Hourly rollups of several days, models, slots, creatives and devices: the triggers write the
  // detailed days (keyed by the text id and texts before 0026).
  await writeHourlyRollups(database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', [
    `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'mobile', 10, 1, 0)`,
    `('${d}', '2026-03-01T05:00:00Z', 'civic', 'header', 'cdn', 'mobile', 5, 0, 0)`,
    `('${d}', '2026-03-01T05:00:00Z', 'civic', 'header', 'cdn', 'desktop', 4, 1, 0)`,
    `('${d}', '2026-03-01T06:00:00Z', 'civic', '', 'cdn', 'desktop', 0, 0, 1)`,
    `('${d}', '2026-03-02T10:00:00Z', 'accord', 'primary', 'fallback', 'unknown', 7, 0, 0)`,
    `('${d}', '2026-03-03T23:00:00Z', 'pilot', 'upsell', '', 'mobile', 3, 0, 0)`,
    `('${d}', '2026-03-08T12:00:00Z', 'accord', 'primary', 'asset-1', 'desktop', 2, 1, 1)`,
  ]);
  daysBefore = await detailedDays(sql`
    SELECT dealer_id AS dealer, to_char(day, 'YYYY-MM-DD') AS day, model, slot_type AS slot, creative, device::text AS device, impressions, clicks, conversions
    FROM event_rollups_daily ORDER BY 1, 2, 3, 4, 5, 6`);
  totalsBefore = await rows(sql`
    SELECT device::text AS device, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions
    FROM event_rollups_daily WHERE dealer_id = ${d} AND day >= '2026-03-01' AND day < '2026-03-09' GROUP BY 1 ORDER BY 1`);
});
const { rows } = before;

describe('migration 0026 rollup details', () => {
  it('keeps every detailed day with its counts, under the dealer key and the details id', async () => {
    expect(daysBefore).toEqual([
      `${d} 2026-03-01 civic  cdn desktop 0/0/1`,
      `${d} 2026-03-01 civic header cdn desktop 4/1/0`,
      `${d} 2026-03-01 civic header cdn mobile 15/1/0`,
      `${d} 2026-03-02 accord primary fallback unknown 7/0/0`,
      `${d} 2026-03-03 pilot upsell  mobile 3/0/0`,
      `${d} 2026-03-08 accord primary asset-1 desktop 2/1/1`,
    ]);
    expect(await daysAfter()).toEqual(daysBefore);
    const columns = await rows<{ column_name: string }>(
      sql`SELECT column_name FROM information_schema.columns WHERE table_name = 'event_rollups_daily' AND table_schema = current_schema() ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => c.column_name)).toEqual(['day', 'dealer_key', 'detail_id', 'device', 'impressions', 'clicks', 'conversions']);
    const indexes = await rows<{ def: string }>(sql`SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'event_rollups_daily' AND schemaname = current_schema()`);
    expect(indexes.map((i) => i.def.replace(/^.* USING /, ''))).toEqual(['btree (dealer_key, day, detail_id, device)']);
    // Each (model, slot, creative) once.
    const details = await rows<{ n: number; distinct: number }>(sql`SELECT count(*)::int AS n, count(DISTINCT (model, slot_type, creative))::int AS distinct FROM rollup_details`);
    expect(details[0]!.n).toBe(details[0]!.distinct);
  });

  it('answers the screens the figures of the rows before', async () => {
    const after = await screens();
    const sum = (key: 'impressions' | 'clicks' | 'conversions') => totalsBefore.reduce((n, r) => n + Number(r[key]), 0);
    expect(after.totals).toEqual({ impressions: sum('impressions'), clicks: sum('clicks'), conversions: sum('conversions') });
    expect(after.totals).toEqual({ impressions: 31, clicks: 3, conversions: 2 });
    const mobile = totalsBefore.find((r) => r.device === 'mobile')!;
    expect(after.mobile).toEqual({ impressions: Number(mobile.impressions), clicks: Number(mobile.clicks), conversions: Number(mobile.conversions) });
    expect(after.models.map((m) => [m.model, m.impressions, m.clicks, m.conversions, m.rest])).toEqual([
      ['civic', 19, 2, 1, false],
      ['accord', 9, 1, 1, false],
      ['', 3, 0, 0, true],
    ]);
    expect(after.creatives.map((c) => `${c.creative}/${c.slot_type} ${c.impressions}`)).toEqual([
      'cdn/header 19',
      'fallback/primary 7',
      '/upsell 3',
      'asset-1/primary 2',
      'cdn/ 0',
    ]);
    expect(after.days.map((r) => `${r.day} ${r.model ?? '-'} ${r.impressions}/${r.clicks}/${r.conversions}`)).toEqual([
      '2026-03-01 civic 19/2/1',
      '2026-03-02 accord 7/0/0',
      '2026-03-03 - 3/0/0',
      '2026-03-08 accord 2/1/1',
    ]);
  });

  it('keeps the detailed days equal to the hourly rows through upserts, new details and deletes', async () => {
    await writeHourlyRollups(before.database, 'dealer_id, hour, model, slot_type, creative, device, impressions, clicks, conversions', [
      `('${d}', '2026-03-01T00:00:00Z', 'civic', 'header', 'cdn', 'mobile', 2, 0, 0)`,
      `('${d}', '2026-03-08T13:00:00Z', 'odyssey', 'header', 'asset-2', 'mobile', 6, 0, 0)`,
    ], { upsert: true });
    await before.database.db.execute(sql.raw(`DELETE FROM event_rollups_hourly WHERE slot_type = ''`));
    expect(await daysAfter()).toEqual([
      `${d} 2026-03-01 civic  cdn desktop 0/0/0`,
      `${d} 2026-03-01 civic header cdn desktop 4/1/0`,
      `${d} 2026-03-01 civic header cdn mobile 17/1/0`,
      `${d} 2026-03-02 accord primary fallback unknown 7/0/0`,
      `${d} 2026-03-03 pilot upsell  mobile 3/0/0`,
      `${d} 2026-03-08 accord primary asset-1 desktop 2/1/1`,
      `${d} 2026-03-08 odyssey header asset-2 mobile 6/0/0`,
    ]);
    expect(await totals(before.database.db, { dealerId: d }, WINDOW)).toEqual({ impressions: 39, clicks: 3, conversions: 1 });
    // Writes of stored details take no new ids (identities taken by conflicting inserts are never given back).
    const ids = await rows<{ n: number; max: number }>(sql`SELECT count(*)::int AS n, max(id)::int AS max FROM rollup_details`);
    expect(ids[0]!.max).toBe(ids[0]!.n);
  });

  it('prunes the days past DETAIL_DAILY_DAYS through the primary key', async () => {
    // 2026-03-03 is the first day kept 92 days before 2026-06-03.
    let deleted = 0;
    for (let n; (n = await pruneHourlyRollups(before.database.db, new Date('2026-06-03T12:00:00Z'), 2)) > 0; ) deleted += n;
    expect(deleted).toBeGreaterThanOrEqual(5);
    expect((await daysAfter()).map((x) => x.split(' ')[1])).toEqual(['2026-03-03', '2026-03-08', '2026-03-08']);
  });
});
