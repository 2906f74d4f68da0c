-- Smaller detailed daily rollups (docs/OPERATIONS.md "Disk per million events"; target 150 MB per
-- million events, events + rollups incl. indexes, with migration 0024's device):
-- event_rollups_daily (dealer x UTC day x model x slot x creative x device, kept 92 days) carried
-- the dealer's text id (about 18 bytes) and three texts (model, slot type, creative: about 22 bytes)
-- in every row and again in every primary key entry, with alignment padding after the id. Now:
-- - `rollup_details` stores each (model, slot type, creative) once, with an integer id (an
--   identity, never reused, never pruned: the distinct models, slots and creatives of every
--   dealer's banners, a few thousand rows);
-- - event_rollups_daily carries the dealer's key (dealers.key, migration 0025) and that id: 7
--   fixed-width columns (day, dealer_key, detail_id, device, the three counts: 28 bytes, no
--   padding), the primary key (dealer_key, day, detail_id, device) 16 bytes an entry, the foreign
--   key to dealers.key (ON DELETE CASCADE, as it was to dealers.id); none to rollup_details (its
--   rows are never deleted, the trigger takes the ids from it, and a foreign key would lock every
--   detail row a batch writes);
-- - its day index goes: only the retention job's pruning of days past DETAIL_DAILY_DAYS read it,
--   and it now reads each dealer's old days through the primary key (reporting/service.ts
--   pruneHourlyRollups).
-- Every row of an existing dealer is copied under its key and its details' id (a deleted dealer's
-- rows are gone by the cascade already). The rollup trigger function (migrations 0015, 0017, 0024,
-- 0025) stores the details of the hourly rows it receives first, then writes the detailed days by
-- key and id. event_rollups_hourly keeps the text id and texts: ingestion writes it, the dealer
-- purge deletes from it without a foreign key (migration 0021), and it keeps 10 days only.
-- Readers go through server/reporting (service.ts), which joins dealers and rollup_details back.
-- The same SQL runs on PGlite.
LOCK TABLE "event_rollups_hourly" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
CREATE TABLE "rollup_details" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"model" text NOT NULL,
	"slot_type" text NOT NULL,
	"creative" text NOT NULL,
	CONSTRAINT "rollup_details_model_slot_type_creative_unique" UNIQUE("model","slot_type","creative")
);--> statement-breakpoint
ALTER TABLE "event_rollups_daily" RENAME TO "event_rollups_daily_by_id";--> statement-breakpoint
DROP INDEX "event_rollups_daily_day_idx";--> statement-breakpoint
INSERT INTO "rollup_details" ("model", "slot_type", "creative")
SELECT DISTINCT "model", "slot_type", "creative" FROM "event_rollups_daily_by_id"
UNION SELECT DISTINCT "model", "slot_type", "creative" FROM "event_rollups_hourly" ORDER BY 1, 2, 3;--> statement-breakpoint
CREATE TABLE "event_rollups_daily" (
	"day" date NOT NULL,
	"dealer_key" integer NOT NULL,
	"detail_id" integer NOT NULL,
	"device" "device_class" DEFAULT 'unknown' NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
INSERT INTO "event_rollups_daily" ("day", "dealer_key", "detail_id", "device", "impressions", "clicks", "conversions")
SELECT r."day", d."key", x."id", r."device", r."impressions", r."clicks", r."conversions"
FROM "event_rollups_daily_by_id" r JOIN "dealers" d ON d."id" = r."dealer_id"
JOIN "rollup_details" x ON x."model" = r."model" AND x."slot_type" = r."slot_type" AND x."creative" = r."creative"
ORDER BY r."day", d."key";--> statement-breakpoint
DROP TABLE "event_rollups_daily_by_id";--> statement-breakpoint
ALTER TABLE "event_rollups_daily" ADD CONSTRAINT "event_rollups_daily_dealer_key_day_detail_id_device_pk" PRIMARY KEY("dealer_key","day","detail_id","device");--> statement-breakpoint
ALTER TABLE "event_rollups_daily" ADD CONSTRAINT "event_rollups_daily_dealer_key_dealers_key_fk" FOREIGN KEY ("dealer_key") REFERENCES "dealers"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Migration 0025's function, with the details stored once and the detailed days keyed by the
-- dealer's key and the details' id.
CREATE OR REPLACE FUNCTION "rollups_from_hourly"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF current_setting('dc_banners.rollup_prune', true) = 'on' OR NOT EXISTS (SELECT 1 FROM "old_rows") THEN
      RETURN NULL;
    END IF;
    -- Only rows that exist are lowered: a dealer's cascade delete may have removed them already.
    WITH d AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "device",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM "old_rows" GROUP BY 1, 2, 3, 4, 5, 6),
    daily AS (
      UPDATE "event_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT k."key", (d."hour" AT TIME ZONE 'UTC')::date AS "day", x."id", d."device", sum(i) AS i, sum(c) AS c, sum(v) AS v
        FROM d JOIN "dealers" k ON k."id" = d."dealer_id"
        JOIN "rollup_details" x ON x."model" = d."model" AND x."slot_type" = d."slot_type" AND x."creative" = d."creative" GROUP BY 1, 2, 3, 4) d
      WHERE t."dealer_key" = d."key" AND t."day" = d."day" AND t."detail_id" = d."id" AND t."device" = d."device"),
    per_hour AS (
      UPDATE "dealer_rollups_hourly" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT k."key", d."hour", d."device", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d JOIN "dealers" k ON k."id" = d."dealer_id" GROUP BY 1, 2, 3) d
      WHERE t."dealer_key" = d."key" AND t."hour" = d."hour" AND t."device" = d."device"),
    per_day AS (
      UPDATE "dealer_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT k."key", (d."hour" AT TIME ZONE 'UTC')::date AS "day", d."device", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d JOIN "dealers" k ON k."id" = d."dealer_id" GROUP BY 1, 2, 3) d
      WHERE t."dealer_key" = d."key" AND t."day" = d."day" AND t."device" = d."device")
    UPDATE "dealer_rollup_totals" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
    FROM (SELECT "dealer_id", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1) d
    WHERE t."dealer_id" = d."dealer_id";
    RETURN NULL;
  END IF;
  -- An ingestion statement fires both triggers; the one whose rows are empty costs a lookup only.
  IF NOT EXISTS (SELECT 1 FROM "new_rows") THEN
    RETURN NULL;
  END IF;
  -- The (model, slot, creative) of the rows not stored yet, stored first, in a statement of its own:
  -- the next statement's snapshot (READ COMMITTED) sees them, a concurrent writer's committed ones
  -- too (its ON CONFLICT waited for that writer). Only the missing ones are inserted: an INSERT that
  -- meets a conflict still takes an identity value, and the ids would run out at the platform's
  -- batch rate.
  INSERT INTO "rollup_details" ("model", "slot_type", "creative")
  SELECT DISTINCT n."model", n."slot_type", n."creative" FROM "new_rows" n
  WHERE NOT EXISTS (SELECT 1 FROM "rollup_details" x WHERE x."model" = n."model" AND x."slot_type" = n."slot_type" AND x."creative" = n."creative")
  ORDER BY 1, 2, 3
  ON CONFLICT ("model", "slot_type", "creative") DO NOTHING;
  -- Summed per hour first, then per day; in key order, so concurrent writers lock shared rows in the
  -- same order. (Two branches: an INSERT trigger has no "old_rows".)
  IF TG_OP = 'INSERT' THEN
    -- INSERT: the new rows.
    WITH changed AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "device", "impressions", "clicks", "conversions" FROM "new_rows"),
    h AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "device",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM changed GROUP BY 1, 2, 3, 4, 5, 6
      HAVING sum("impressions") <> 0 OR sum("clicks") <> 0 OR sum("conversions") <> 0),
    d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative", "device", sum(i) AS i, sum(c) AS c, sum(v) AS v
      FROM h GROUP BY 1, 2, 3, 4, 5, 6),
    daily AS (
      INSERT INTO "event_rollups_daily" AS t ("dealer_key", "day", "detail_id", "device", "impressions", "clicks", "conversions")
      SELECT k."key", d."day", x."id", d."device", i, c, v FROM d JOIN "dealers" k ON k."id" = d."dealer_id"
        JOIN "rollup_details" x ON x."model" = d."model" AND x."slot_type" = d."slot_type" AND x."creative" = d."creative" ORDER BY 1, 2, 3, 4
      ON CONFLICT ("dealer_key", "day", "detail_id", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_hour AS (
      INSERT INTO "dealer_rollups_hourly" AS t ("dealer_key", "hour", "device", "impressions", "clicks", "conversions")
      SELECT k."key", h."hour", h."device", sum(i), sum(c), sum(v) FROM h JOIN "dealers" k ON k."id" = h."dealer_id" GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_key", "hour", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_day AS (
      INSERT INTO "dealer_rollups_daily" AS t ("dealer_key", "day", "device", "impressions", "clicks", "conversions")
      SELECT k."key", d."day", d."device", sum(i), sum(c), sum(v) FROM d JOIN "dealers" k ON k."id" = d."dealer_id" GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_key", "day", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions")
    INSERT INTO "dealer_rollup_totals" AS t ("dealer_id", "impressions", "clicks", "conversions")
    SELECT "dealer_id", sum(i), sum(c), sum(v) FROM d GROUP BY 1 ORDER BY 1
    ON CONFLICT ("dealer_id") DO UPDATE
    SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
  ELSE
    -- UPDATE (the ingestion's ON CONFLICT DO UPDATE): new minus old.
    WITH changed AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "device", "impressions", "clicks", "conversions" FROM "new_rows"
      UNION ALL
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "device", -"impressions", -"clicks", -"conversions" FROM "old_rows"),
    h AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "device",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM changed GROUP BY 1, 2, 3, 4, 5, 6
      HAVING sum("impressions") <> 0 OR sum("clicks") <> 0 OR sum("conversions") <> 0),
    d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative", "device", sum(i) AS i, sum(c) AS c, sum(v) AS v
      FROM h GROUP BY 1, 2, 3, 4, 5, 6),
    daily AS (
      INSERT INTO "event_rollups_daily" AS t ("dealer_key", "day", "detail_id", "device", "impressions", "clicks", "conversions")
      SELECT k."key", d."day", x."id", d."device", i, c, v FROM d JOIN "dealers" k ON k."id" = d."dealer_id"
        JOIN "rollup_details" x ON x."model" = d."model" AND x."slot_type" = d."slot_type" AND x."creative" = d."creative" ORDER BY 1, 2, 3, 4
      ON CONFLICT ("dealer_key", "day", "detail_id", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_hour AS (
      INSERT INTO "dealer_rollups_hourly" AS t ("dealer_key", "hour", "device", "impressions", "clicks", "conversions")
      SELECT k."key", h."hour", h."device", sum(i), sum(c), sum(v) FROM h JOIN "dealers" k ON k."id" = h."dealer_id" GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_key", "hour", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_day AS (
      INSERT INTO "dealer_rollups_daily" AS t ("dealer_key", "day", "device", "impressions", "clicks", "conversions")
      SELECT k."key", d."day", d."device", sum(i), sum(c), sum(v) FROM d JOIN "dealers" k ON k."id" = d."dealer_id" GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_key", "day", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions")
    INSERT INTO "dealer_rollup_totals" AS t ("dealer_id", "impressions", "clicks", "conversions")
    SELECT "dealer_id", sum(i), sum(c), sum(v) FROM d GROUP BY 1 ORDER BY 1
    ON CONFLICT ("dealer_id") DO UPDATE
    SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
  END IF;
  RETURN NULL;
END $$;
