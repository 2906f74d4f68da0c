-- The device a beacon came from (desktop or mobile), so the dealer's Analytics screen can split its
-- figures. The server classifies each beacon from its request headers (domain/device.ts deviceOf:
-- `Sec-CH-UA-Mobile`, else the User-Agent's "Mobi" token; tablets count as desktop, as their
-- browsers declare themselves) and stores it as the enum `device_class`: 4 bytes, and a value
-- outside the three is refused by the type itself, as `event_kind` (migration 0017).
-- Events and rollups stored before this migration were never classified: they get 'unknown',
-- counted in every total ('all') and in neither the desktop nor the mobile figures; no guess is
-- made after the fact. The four windowed rollups (event_rollups_hourly, event_rollups_daily,
-- dealer_rollups_hourly, dealer_rollups_daily) take the device into their primary keys, so every
-- read of a dealer's window (totals, series, models, slots, creatives, CSV) can be narrowed to one
-- device with the same exact rollups; the all-time dealer_rollup_totals stays per dealer. Adding
-- a column with a constant default rewrites no table; the primary keys are rebuilt.
-- The rollup triggers (migrations 0015, 0017) carry the device from the hourly rows into the daily
-- and the dealer rollups.
LOCK TABLE "event_rollups_hourly" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
CREATE TYPE "device_class" AS ENUM('desktop', 'mobile', 'unknown');--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "device" "device_class" DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" ADD COLUMN "device" "device_class" DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" DROP CONSTRAINT "event_rollups_hourly_dealer_id_hour_model_slot_type_creative_pk";--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" ADD CONSTRAINT "event_rollups_hourly_dealer_id_hour_model_slot_type_creative_device_pk" PRIMARY KEY("dealer_id","hour","model","slot_type","creative","device");--> statement-breakpoint
ALTER TABLE "event_rollups_daily" ADD COLUMN "device" "device_class" DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
ALTER TABLE "event_rollups_daily" DROP CONSTRAINT "event_rollups_daily_dealer_id_day_model_slot_type_creative_pk";--> statement-breakpoint
ALTER TABLE "event_rollups_daily" ADD CONSTRAINT "event_rollups_daily_dealer_id_day_model_slot_type_creative_device_pk" PRIMARY KEY("dealer_id","day","model","slot_type","creative","device");--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD COLUMN "device" "device_class" DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" DROP CONSTRAINT "dealer_rollups_hourly_dealer_id_hour_pk";--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD CONSTRAINT "dealer_rollups_hourly_dealer_id_hour_device_pk" PRIMARY KEY("dealer_id","hour","device");--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" ADD COLUMN "device" "device_class" DEFAULT 'unknown' NOT NULL;--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" DROP CONSTRAINT "dealer_rollups_daily_dealer_id_day_pk";--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" ADD CONSTRAINT "dealer_rollups_daily_dealer_id_day_device_pk" PRIMARY KEY("dealer_id","day","device");--> statement-breakpoint
-- Migration 0017's function, with the device kept in every rollup but the all-time totals.
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
      FROM (SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative", "device", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2, 3, 4, 5, 6) d
      WHERE t."dealer_id" = d."dealer_id" AND t."day" = d."day" AND t."model" = d."model" AND t."slot_type" = d."slot_type" AND t."creative" = d."creative" AND t."device" = d."device"),
    per_hour AS (
      UPDATE "dealer_rollups_hourly" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT "dealer_id", "hour", "device", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2, 3) d
      WHERE t."dealer_id" = d."dealer_id" AND t."hour" = d."hour" AND t."device" = d."device"),
    per_day AS (
      UPDATE "dealer_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "device", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2, 3) d
      WHERE t."dealer_id" = d."dealer_id" AND t."day" = d."day" AND t."device" = d."device")
    UPDATE "dealer_rollup_totals" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
    FROM (SELECT "dealer_id", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1) d
    WHERE t."dealer_id" = d."dealer_id";
    RETURN NULL;
  END IF;
  -- An ingestion statement fires both triggers; the one whose rows are empty costs a lookup only.
  IF NOT EXISTS (SELECT 1 FROM "new_rows") THEN
    RETURN NULL;
  END IF;
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
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", "device", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_hour AS (
      INSERT INTO "dealer_rollups_hourly" AS t ("dealer_id", "hour", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "hour", "device", sum(i), sum(c), sum(v) FROM h GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_id", "hour", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_day AS (
      INSERT INTO "dealer_rollups_daily" AS t ("dealer_id", "day", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "device", sum(i), sum(c), sum(v) FROM d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_id", "day", "device") DO UPDATE
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
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", "device", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_hour AS (
      INSERT INTO "dealer_rollups_hourly" AS t ("dealer_id", "hour", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "hour", "device", sum(i), sum(c), sum(v) FROM h GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_id", "hour", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_day AS (
      INSERT INTO "dealer_rollups_daily" AS t ("dealer_id", "day", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "device", sum(i), sum(c), sum(v) FROM d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT ("dealer_id", "day", "device") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions")
    INSERT INTO "dealer_rollup_totals" AS t ("dealer_id", "impressions", "clicks", "conversions")
    SELECT "dealer_id", sum(i), sum(c), sum(v) FROM d GROUP BY 1 ORDER BY 1
    ON CONFLICT ("dealer_id") DO UPDATE
    SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
  END IF;
  RETURN NULL;
END $$;
