-- Narrower event rows (docs/OPERATIONS.md "Disk per million events"; target 150 MB per million
-- events, events + rollups incl. indexes):
-- - dealers get an integer `key` (an identity, never reused), and events carry it (`dealer_key`, 4
--   bytes) instead of the dealer's text id (about 18 bytes). Ingestion looks the key up by id in the
--   statement that stores the batch (a read of dealers' unique index, no row lock); a deleted
--   dealer's straggling beacon finds no key, its NOT NULL refuses the batch (dead-lettered as
--   before). dealer_purges keeps the deleted dealer's key, so the purge finds its events.
-- - events lose `lead_id`: nothing read it; the conversion's lead hash is the 'lead' row of
--   event_keys (the rule "one conversion per lead"), kept as long as the events. lead_id was null
--   in nearly every row, so every row carried a null bitmap and a 32-byte header; with 9 columns
--   (migration 0024's device included) a row without nulls has no bitmap and a 24-byte header.
-- - dealer_rollups_hourly and dealer_rollups_daily (the dealer totals per hour and per day and
--   device, the latter kept for ever) carry the key too, in their rows and primary keys (dealer
--   key, hour or day, device: migration 0024's device stays), with the time first (no alignment
--   padding); their foreign key is to dealers.key, still ON DELETE CASCADE. The rollup triggers
--   (migrations 0015, 0017, 0024) look the key up by the dealer id of the hourly rows and keep the
--   device. The detailed rollups keep the text id.
-- - dealer_rollups_daily's covering index (day, dealer_id, counts) becomes an index on day alone:
--   the platform windows (every dealer, a range of days) read the day range through it and the
--   rows from the heap; the covering entries took 52 bytes a row where these take a few (a btree
--   stores each day once with its rows' list).
-- The events are rebuilt as migration 0022 did: the old table and its weekly partitions are
-- renamed, the new partitioned table created with the same weekly partitions
-- (event_partitions_ensure, migration 0014), every row of an existing dealer copied with its key
-- and its device (the rows of dealers deleted and not yet purged are unreachable and not copied),
-- the old table dropped. The fixed-width columns come first (occurred_at, event, url_id,
-- dealer_key, device: no alignment padding), then the texts. The same SQL runs on PGlite.
ALTER TABLE "dealers" ADD COLUMN "key" integer GENERATED ALWAYS AS IDENTITY;--> statement-breakpoint
ALTER TABLE "dealers" ADD CONSTRAINT "dealers_key_unique" UNIQUE("key");--> statement-breakpoint
ALTER TABLE "dealer_purges" ADD COLUMN "dealer_key" integer;--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" RENAME TO "dealer_rollups_hourly_by_id";--> statement-breakpoint
DROP INDEX "dealer_rollups_hourly_hour_idx";--> statement-breakpoint
CREATE TABLE "dealer_rollups_hourly" (
	"hour" timestamp with time zone NOT NULL,
	"dealer_key" integer NOT NULL,
	"device" "device_class" DEFAULT 'unknown' NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
INSERT INTO "dealer_rollups_hourly" ("hour", "dealer_key", "device", "impressions", "clicks", "conversions")
SELECT r."hour", d."key", r."device", r."impressions", r."clicks", r."conversions" FROM "dealer_rollups_hourly_by_id" r JOIN "dealers" d ON d."id" = r."dealer_id"
ORDER BY r."hour", d."key", r."device";--> statement-breakpoint
DROP TABLE "dealer_rollups_hourly_by_id";--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD CONSTRAINT "dealer_rollups_hourly_dealer_key_hour_device_pk" PRIMARY KEY("dealer_key","hour","device");--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD CONSTRAINT "dealer_rollups_hourly_dealer_key_dealers_key_fk" FOREIGN KEY ("dealer_key") REFERENCES "dealers"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dealer_rollups_hourly_hour_idx" ON "dealer_rollups_hourly" USING btree ("hour");--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" RENAME TO "dealer_rollups_daily_by_id";--> statement-breakpoint
DROP INDEX "dealer_rollups_daily_day_idx";--> statement-breakpoint
CREATE TABLE "dealer_rollups_daily" (
	"day" date NOT NULL,
	"dealer_key" integer NOT NULL,
	"device" "device_class" DEFAULT 'unknown' NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
INSERT INTO "dealer_rollups_daily" ("day", "dealer_key", "device", "impressions", "clicks", "conversions")
SELECT r."day", d."key", r."device", r."impressions", r."clicks", r."conversions" FROM "dealer_rollups_daily_by_id" r JOIN "dealers" d ON d."id" = r."dealer_id"
ORDER BY r."day", d."key", r."device";--> statement-breakpoint
DROP TABLE "dealer_rollups_daily_by_id";--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" ADD CONSTRAINT "dealer_rollups_daily_dealer_key_day_device_pk" PRIMARY KEY("dealer_key","day","device");--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" ADD CONSTRAINT "dealer_rollups_daily_dealer_key_dealers_key_fk" FOREIGN KEY ("dealer_key") REFERENCES "dealers"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dealer_rollups_daily_day_idx" ON "dealer_rollups_daily" USING btree ("day");--> statement-breakpoint
-- Migration 0024's function (the device kept in every rollup but the all-time totals), with the
-- dealer hours and days keyed by the dealer's key.
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
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "device", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", "device", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative", "device") DO UPDATE
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
--> statement-breakpoint
DROP INDEX "events_occurred_brin";--> statement-breakpoint
ALTER TABLE "events" RENAME TO "events_before_keys";--> statement-breakpoint
DO $$
DECLARE
	part record;
BEGIN
	FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"events_before_keys"'::regclass LOOP
		EXECUTE format('ALTER TABLE %I RENAME TO %I', part.relname, 'before_keys_' || part.relname);
	END LOOP;
END
$$;--> statement-breakpoint
CREATE TABLE "events" (
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"event" "event_kind" NOT NULL,
	"url_id" integer,
	"dealer_key" integer NOT NULL,
	"device" "device_class" DEFAULT 'unknown' NOT NULL,
	"slot_type" text,
	"model" text DEFAULT '' NOT NULL,
	"page_view" text,
	"creative" text
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
CREATE INDEX "events_occurred_brin" ON "events" USING brin ("occurred_at");--> statement-breakpoint
SELECT "event_partitions_ensure"(least((SELECT min("occurred_at") FROM "events_before_keys"), now()), now() + interval '21 days');--> statement-breakpoint
INSERT INTO "events" ("occurred_at", "event", "url_id", "dealer_key", "device", "slot_type", "model", "page_view", "creative")
SELECT e."occurred_at", e."event", e."url_id", d."key", e."device", e."slot_type", e."model", e."page_view", e."creative"
FROM "events_before_keys" e JOIN "dealers" d ON d."id" = e."dealer_id"
ORDER BY e."occurred_at";--> statement-breakpoint
DROP TABLE "events_before_keys";
