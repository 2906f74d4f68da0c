-- Reporting rollups: what the screens read (server/reporting). event_rollups_daily (dealer x UTC day x model x
-- slot x creative) serves the full days of every dealer screen, export and report; dealer_rollups_daily (dealer x
-- UTC day) the admin screens and dealer totals; dealer_rollup_totals the all-time figures. The hourly rollups are
-- then needed only for the hours of the 24h period and of partial days, and the retention job prunes them after
-- HOURLY_ROLLUP_DAYS; the daily tables are kept.
-- The triggers below keep the three tables equal to the hourly rows ever written, in the writer's statement and
-- transaction, whoever writes them (the ingestion's one statement per batch, tools, tests): a statement's rows are
-- summed once per statement through its transition tables. A DELETE subtracts (a correction), except the
-- retention job's pruning, which sets dc_banners.rollup_prune for its transaction.
CREATE TABLE "dealer_rollup_totals" (
	"dealer_id" text PRIMARY KEY NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"conversions" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dealer_rollups_daily" (
	"dealer_id" text NOT NULL,
	"day" date NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"conversions" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "dealer_rollups_daily_dealer_id_day_pk" PRIMARY KEY("dealer_id","day")
);
--> statement-breakpoint
CREATE TABLE "event_rollups_daily" (
	"dealer_id" text NOT NULL,
	"day" date NOT NULL,
	"model" text NOT NULL,
	"slot_type" text NOT NULL,
	"creative" text DEFAULT '' NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "event_rollups_daily_dealer_id_day_model_slot_type_creative_pk" PRIMARY KEY("dealer_id","day","model","slot_type","creative")
);
--> statement-breakpoint
ALTER TABLE "dealer_rollup_totals" ADD CONSTRAINT "dealer_rollup_totals_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dealer_rollups_daily" ADD CONSTRAINT "dealer_rollups_daily_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_rollups_daily" ADD CONSTRAINT "event_rollups_daily_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dealer_rollups_daily_day_idx" ON "dealer_rollups_daily" USING btree ("day","dealer_id","impressions","clicks","conversions");--> statement-breakpoint
CREATE INDEX "event_rollups_hourly_hour_idx" ON "event_rollups_hourly" USING btree ("hour");--> statement-breakpoint
CREATE FUNCTION "rollups_from_hourly"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF current_setting('dc_banners.rollup_prune', true) = 'on' OR NOT EXISTS (SELECT 1 FROM "old_rows") THEN
      RETURN NULL;
    END IF;
    -- Only rows that exist are lowered: a dealer's cascade delete may have removed them already.
    WITH d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM "old_rows" GROUP BY 1, 2, 3, 4, 5),
    daily AS (
      UPDATE "event_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM d WHERE t."dealer_id" = d."dealer_id" AND t."day" = d."day" AND t."model" = d."model" AND t."slot_type" = d."slot_type" AND t."creative" = d."creative"),
    per_day AS (
      UPDATE "dealer_rollups_daily" t SET "impressions" = t."impressions" - d.i, "clicks" = t."clicks" - d.c, "conversions" = t."conversions" - d.v
      FROM (SELECT "dealer_id", "day", sum(i) AS i, sum(c) AS c, sum(v) AS v FROM d GROUP BY 1, 2) d
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
  IF TG_OP = 'INSERT' THEN
    -- INSERT: the new rows.
    WITH changed AS (
      SELECT "dealer_id", "hour", "model", "slot_type", "creative", "impressions", "clicks", "conversions" FROM "new_rows"),
    d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM changed GROUP BY 1, 2, 3, 4, 5
      HAVING sum("impressions") <> 0 OR sum("clicks") <> 0 OR sum("conversions") <> 0),
    -- In key order, so concurrent writers lock shared rows in the same order.
    daily AS (
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative") DO UPDATE
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
    d AS (
      SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date AS "day", "model", "slot_type", "creative",
        sum("impressions") AS i, sum("clicks") AS c, sum("conversions") AS v
      FROM changed GROUP BY 1, 2, 3, 4, 5
      HAVING sum("impressions") <> 0 OR sum("clicks") <> 0 OR sum("conversions") <> 0),
    -- In key order, so concurrent writers lock shared rows in the same order.
    daily AS (
      INSERT INTO "event_rollups_daily" AS t ("dealer_id", "day", "model", "slot_type", "creative", "impressions", "clicks", "conversions")
      SELECT "dealer_id", "day", "model", "slot_type", "creative", i, c, v FROM d ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ("dealer_id", "day", "model", "slot_type", "creative") DO UPDATE
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
END $$;--> statement-breakpoint
-- Transition tables allow one event per trigger. Created before the backfill: CREATE TRIGGER locks out writers of
-- the hourly rollups until this migration commits, so no row is written between the backfill and the triggers.
CREATE TRIGGER "hourly_rollups_insert" AFTER INSERT ON "event_rollups_hourly" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "rollups_from_hourly"();--> statement-breakpoint
CREATE TRIGGER "hourly_rollups_update" AFTER UPDATE ON "event_rollups_hourly" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "rollups_from_hourly"();--> statement-breakpoint
CREATE TRIGGER "hourly_rollups_delete" AFTER DELETE ON "event_rollups_hourly" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "rollups_from_hourly"();--> statement-breakpoint
-- Backfill from every hourly rollup written so far.
INSERT INTO "event_rollups_daily" ("dealer_id", "day", "model", "slot_type", "creative", "impressions", "clicks", "conversions")
SELECT "dealer_id", ("hour" AT TIME ZONE 'UTC')::date, "model", "slot_type", "creative", sum("impressions"), sum("clicks"), sum("conversions")
FROM "event_rollups_hourly" GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
INSERT INTO "dealer_rollups_daily" ("dealer_id", "day", "impressions", "clicks", "conversions")
SELECT "dealer_id", "day", sum("impressions"), sum("clicks"), sum("conversions") FROM "event_rollups_daily" GROUP BY 1, 2;--> statement-breakpoint
INSERT INTO "dealer_rollup_totals" ("dealer_id", "impressions", "clicks", "conversions")
SELECT "dealer_id", sum("impressions"), sum("clicks"), sum("conversions") FROM "dealer_rollups_daily" GROUP BY 1;
