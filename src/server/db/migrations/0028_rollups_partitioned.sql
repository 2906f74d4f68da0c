-- Hourly rollups stored by time, so retention drops them whole (docs/PERFORMANCE.md "Retention
-- passes at 4M events"): event_rollups_hourly and dealer_rollups_hourly become native partitioned
-- tables, PARTITION BY RANGE (hour), one partition per UTC day (00:00 to the next), named
-- <table>_YYYYMMDD. Daily, for both: the retention cutoffs are UTC day starts (domain/retention.ts),
-- so the partitions older than a cutoff hold exactly the rows older than it and a pass drops them
-- instead of deleting rows (maintenance/partitions.ts, reporting/service.ts pruneHourlyRollups).
-- About 35 partitions of event_rollups_hourly (10 days kept, three weeks ahead) and 115 of
-- dealer_rollups_hourly (92 days kept) exist at a time; their reads name hour ranges and prune to
-- their days.
--
-- The primary keys contain hour, so they stay (as partitioned indexes) and ingestion's ON CONFLICT
-- and the rollup triggers' are unchanged. The statement-level triggers with transition tables
-- (migration 0015) are recreated on the partitioned event_rollups_hourly: PostgreSQL fires a
-- partitioned table's statement triggers for a statement naming it, with the rows of every
-- partition it touched in the transition tables; a statement naming a partition itself fires none
-- (only rollup_partitions_ensure below does that, moving rows between partitions), and dropping a
-- partition fires none: its counts stay in the daily tables and totals, as the pruning's deletes
-- under dc_banners.rollup_prune did.
--
-- Each table has a DEFAULT partition, so no write fails for want of a day: the retention job keeps
-- the days from today through three weeks ahead created, and a row of another day (a late replay of
-- an old hour) lands in the DEFAULT partition, where the pruning deletes it by rows once expired.
-- Creating a day whose rows wait in the DEFAULT partition moves them into it (the function below).
--
-- Existing rows move in this migration's transaction: the old tables renamed, the partitioned ones
-- created with the days from their oldest row within retention (older ones go to DEFAULT, the next
-- pass deletes them; an empty table from today) through three weeks ahead, the rows copied before the triggers exist (the daily
-- tables hold their counts already), the old tables dropped. The same SQL runs on PGlite.
LOCK TABLE "event_rollups_hourly", "dealer_rollups_hourly" IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" RENAME TO "event_rollups_hourly_unpartitioned";--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" RENAME TO "dealer_rollups_hourly_unpartitioned";--> statement-breakpoint
CREATE TABLE "event_rollups_hourly" (
	"dealer_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
	"slot_type" text NOT NULL,
	"creative" text DEFAULT '' NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL,
	"device" "device_class" DEFAULT 'unknown' NOT NULL
) PARTITION BY RANGE ("hour");--> statement-breakpoint
CREATE TABLE "dealer_rollups_hourly" (
	"hour" timestamp with time zone NOT NULL,
	"dealer_key" integer NOT NULL,
	"device" "device_class" DEFAULT 'unknown' NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL
) PARTITION BY RANGE ("hour");--> statement-breakpoint
-- Creates the daily partitions of `parent` (event_rollups_hourly or dealer_rollups_hourly) covering
-- [from_at, until_at) that do not exist yet, in the schema of the table; returns how many it
-- created. A concurrent creator of the same day is not an error. When the DEFAULT partition holds
-- rows of the day (check_violation), the day is created on its own, those rows moved into it (a
-- statement on the partitions: no rollup trigger fires, the counts are the same rows) and it is
-- attached; a row a writer put in the DEFAULT partition meanwhile fails the attach, which undoes
-- the move, and the day is left to the next call. Called by this migration and by the server
-- (maintenance/partitions.ts).
CREATE FUNCTION "rollup_partitions_ensure"(parent text, from_at timestamptz, until_at timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	day timestamptz := date_trunc('day', from_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
	part text;
	lo text;
	hi text;
	created integer := 0;
BEGIN
	IF parent NOT IN ('event_rollups_hourly', 'dealer_rollups_hourly') THEN
		RAISE EXCEPTION 'not a partitioned rollup table: %', parent;
	END IF;
	WHILE day < until_at LOOP
		part := parent || '_' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD');
		IF to_regclass(quote_ident(part)) IS NULL THEN
			lo := to_char(day AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS+00');
			hi := to_char((day + interval '24 hours') AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS+00');
			BEGIN
				EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', part, parent, lo, hi);
				created := created + 1;
			EXCEPTION
				WHEN duplicate_table OR unique_violation THEN
					NULL;
				WHEN check_violation THEN
					BEGIN
						EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
						EXECUTE format('WITH moved AS (DELETE FROM %I WHERE "hour" >= %L AND "hour" < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
							parent || '_default', lo, hi, part);
						EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
						created := created + 1;
					EXCEPTION WHEN duplicate_table OR unique_violation OR check_violation THEN
						NULL;
					END;
			END;
		END IF;
		day := day + interval '24 hours';
	END LOOP;
	RETURN created;
END
$$;--> statement-breakpoint
SELECT "rollup_partitions_ensure"('event_rollups_hourly',
	least(greatest(coalesce((SELECT min("hour") FROM "event_rollups_hourly_unpartitioned"), now()), now() - interval '11 days'), now()), now() + interval '22 days');--> statement-breakpoint
SELECT "rollup_partitions_ensure"('dealer_rollups_hourly',
	least(greatest(coalesce((SELECT min("hour") FROM "dealer_rollups_hourly_unpartitioned"), now()), now() - interval '93 days'), now()), now() + interval '22 days');--> statement-breakpoint
CREATE TABLE "event_rollups_hourly_default" PARTITION OF "event_rollups_hourly" DEFAULT;--> statement-breakpoint
CREATE TABLE "dealer_rollups_hourly_default" PARTITION OF "dealer_rollups_hourly" DEFAULT;--> statement-breakpoint
INSERT INTO "event_rollups_hourly" ("dealer_id", "hour", "model", "slot_type", "creative", "impressions", "clicks", "conversions", "device")
SELECT "dealer_id", "hour", "model", "slot_type", "creative", "impressions", "clicks", "conversions", "device"
FROM "event_rollups_hourly_unpartitioned" ORDER BY "hour";--> statement-breakpoint
INSERT INTO "dealer_rollups_hourly" ("hour", "dealer_key", "device", "impressions", "clicks", "conversions")
SELECT "hour", "dealer_key", "device", "impressions", "clicks", "conversions"
FROM "dealer_rollups_hourly_unpartitioned" ORDER BY "hour", "dealer_key", "device";--> statement-breakpoint
DROP TABLE "event_rollups_hourly_unpartitioned";--> statement-breakpoint
DROP TABLE "dealer_rollups_hourly_unpartitioned";--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" ADD CONSTRAINT "event_rollups_hourly_dealer_id_hour_model_slot_type_creative_device_pk" PRIMARY KEY("dealer_id","hour","model","slot_type","creative","device");--> statement-breakpoint
CREATE INDEX "event_rollups_hourly_hour_idx" ON "event_rollups_hourly" USING btree ("hour");--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD CONSTRAINT "dealer_rollups_hourly_dealer_key_hour_device_pk" PRIMARY KEY("dealer_key","hour","device");--> statement-breakpoint
ALTER TABLE "dealer_rollups_hourly" ADD CONSTRAINT "dealer_rollups_hourly_dealer_key_dealers_key_fk" FOREIGN KEY ("dealer_key") REFERENCES "dealers"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dealer_rollups_hourly_hour_idx" ON "dealer_rollups_hourly" USING btree ("hour");--> statement-breakpoint
-- Migration 0015's triggers, on the partitioned table (the function is migration 0026's).
CREATE TRIGGER "hourly_rollups_insert" AFTER INSERT ON "event_rollups_hourly" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "rollups_from_hourly"();--> statement-breakpoint
CREATE TRIGGER "hourly_rollups_update" AFTER UPDATE ON "event_rollups_hourly" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "rollups_from_hourly"();--> statement-breakpoint
CREATE TRIGGER "hourly_rollups_delete" AFTER DELETE ON "event_rollups_hourly" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "rollups_from_hourly"();
