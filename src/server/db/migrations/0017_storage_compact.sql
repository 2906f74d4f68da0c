-- Event storage per million events, with the grain each screen reads (docs/OPERATIONS.md "Disk per
-- million events"):
-- - events: the client's timestamp goes (nothing read it; the embed script does not send one; the
--   server's receipt time is what every figure uses), and the event kind becomes an enum (4 bytes
--   where 'impression' took 11). The ALTER rewrites every weekly partition in this transaction.
-- - dealer_rollups_hourly (dealer x UTC hour totals) is new, kept HOURLY_ROLLUP_DAYS: the totals of a
--   window whose partial-day edge is weeks back (the previous window of the 7, 30 and 90-day
--   periods) read it, so the detailed event_rollups_hourly (dealer x hour x model x slot x creative)
--   is kept only DETAIL_HOURLY_DAYS (server/reporting/service.ts), for the screens that show hours or
--   details of partial days (24h, today, the weekly report's dealer-local days).
-- - event_rollups_daily (dealer x day x model x slot x creative) is kept DETAIL_DAILY_DAYS: no screen
--   reads models, creatives or slots of days before the 90-day period; dealer_rollups_daily keeps
--   every day's totals for ever. Its index on day lets the retention job find the days past.
-- - dealer_rollups_daily's counts become integer (a dealer's day is far below 2^31 events): 12 bytes
--   less in its row and in each of its two index entries.
-- The rollup triggers (migration 0015) now keep dealer_rollups_hourly too, equal to the hourly rows
-- ever written; it is backfilled from the hourly rows stored. Existing rows keep every count.
LOCK TABLE "event_rollups_hourly" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
CREATE TYPE "event_kind" AS ENUM('impression', 'click', 'conversion');--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "client_timestamp";--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "event" SET DATA TYPE "event_kind" USING "event"::"event_kind";--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" ALTER COLUMN "impressions" SET DATA TYPE integer, ALTER COLUMN "clicks" SET DATA TYPE integer, ALTER COLUMN "conversions" SET DATA TYPE integer;--> statement-breakpoint
CREATE TABLE "dealer_rollups_hourly" (
	"dealer_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dealer_rollups_hourly_dealer_id_hour_pk" PRIMARY KEY("dealer_id","hour")
);
--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD CONSTRAINT "dealer_rollups_hourly_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dealer_rollups_hourly_hour_idx" ON "dealer_rollups_hourly" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "event_rollups_daily_day_idx" ON "event_rollups_daily" USING btree ("day");--> statement-breakpoint
INSERT INTO "dealer_rollups_hourly" ("dealer_id", "hour", "impressions", "clicks", "conversions")
SELECT "dealer_id", "hour", sum("impressions"), sum("clicks"), sum("conversions") FROM "event_rollups_hourly" GROUP BY 1, 2;--> statement-breakpoint
-- Migration 0015's function, with the dealer's hour kept beside its day.
CREATE OR REPLACE FUNCTION "rollups_from_hourly"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF current_setting('dc_banners.rollup_prune', true) = 'on' OR NOT EXISTS (SELECT 1 FROM "old_rows") THEN
      RETURN NULL;
    END IF;
    -- Only rows that exist are lowered: a dealer's cascade delete may have removed them already.
    WITH d AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM "old_rows" GROUP BY 1, 2, 3, 4, 5),
    daily AS (
      UPDATE "event_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2, 3, 4, 5) d
      WHERE t."dealer_id" = d."dealer_id" AND t."day" = d."day" AND t."model" = d."model" AND t."slot_type" = d."slot_type" AND t."creative" = d."creative"),
    per_hour AS (
      UPDATE "dealer_rollups_hourly" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT "dealer_id", "hour", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2) d
      WHERE t."dealer_id" = d."dealer_id" AND t."hour" = d."hour"),
    per_day AS (
      UPDATE "dealer_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2) d
      WHERE t."dealer_id" = d."dealer_id" AND t."day" = d."day")
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
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "impressions", "clicks", "conversions" FROM "new_rows"),
    h AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM changed GROUP BY 1, 2, 3, 4, 5
      HAVING sum("impressions") <> 0 OR sum("clicks") <> 0 OR sum("conversions") <> 0),
    d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative", sum(i) AS i, sum(c) AS c, sum(v) AS v
      FROM h GROUP BY 1, 2, 3, 4, 5),
    daily AS (
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_hour AS (
      INSERT INTO "dealer_rollups_hourly" AS t ("dealer_id", "hour", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "hour", sum(i), sum(c), sum(v) FROM h GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT ("dealer_id", "hour") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_day AS (
      INSERT INTO "dealer_rollups_daily" AS t ("dealer_id", "day", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", sum(i), sum(c), sum(v) FROM d GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT ("dealer_id", "day") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions")
    INSERT INTO "dealer_rollup_totals" AS t ("dealer_id", "impressions", "clicks", "conversions")
    SELECT "dealer_id", sum(i), sum(c), sum(v) FROM d GROUP BY 1 ORDER BY 1
    ON CONFLICT ("dealer_id") DO UPDATE
    SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
  ELSE
    -- UPDATE (the ingestion's ON CONFLICT DO UPDATE): new minus old.
    WITH changed AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "impressions", "clicks", "conversions" FROM "new_rows"
      UNION ALL
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", -"impressions", -"clicks", -"conversions" FROM "old_rows"),
    h AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM changed GROUP BY 1, 2, 3, 4, 5
      HAVING sum("impressions") <> 0 OR sum("clicks") <> 0 OR sum("conversions") <> 0),
    d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative", sum(i) AS i, sum(c) AS c, sum(v) AS v
      FROM h GROUP BY 1, 2, 3, 4, 5),
    daily AS (
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_hour AS (
      INSERT INTO "dealer_rollups_hourly" AS t ("dealer_id", "hour", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "hour", sum(i), sum(c), sum(v) FROM h GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT ("dealer_id", "hour") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions"),
    per_day AS (
      INSERT INTO "dealer_rollups_daily" AS t ("dealer_id", "day", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", sum(i), sum(c), sum(v) FROM d GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT ("dealer_id", "day") DO UPDATE
      SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions")
    INSERT INTO "dealer_rollup_totals" AS t ("dealer_id", "impressions", "clicks", "conversions")
    SELECT "dealer_id", sum(i), sum(c), sum(v) FROM d GROUP BY 1 ORDER BY 1
    ON CONFLICT ("dealer_id") DO UPDATE
    SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
  END IF;
  RETURN NULL;
END $$;
