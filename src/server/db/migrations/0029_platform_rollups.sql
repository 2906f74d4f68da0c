-- Platform totals per UTC hour and per UTC day, for the admin screens (Admin Dashboard, Platform
-- Analytics' chart): their windows summed every dealer's hourly and daily rows, so the time grew
-- with the dealers × hours of the window (at 20M events, 1,000 dealers: the dashboard's two 30-day
-- windows read some 120,000 dealer days and 96,000 dealer hours, 161 ms against 24 ms at 1M).
-- Now they read a few rows per hour or day, whatever the platform's size.
--
-- Each table holds, per hour (or day) and device, the sum of every dealer's row of
-- dealer_rollups_hourly (or dealer_rollups_daily), kept so by statement triggers on those two
-- tables (the transition tables, as migration 0015's triggers): an insert adds the new rows, an
-- update the new minus the old, a delete (a dealer's rows going with the dealer, ON DELETE CASCADE)
-- subtracts them. The retention's deletes of expired dealer hours run with dc_banners.rollup_prune
-- on and change nothing here (the platform's expired hours are deleted by the same pass; dropping a
-- partition fires no trigger).
--
-- `shard` is the writing backend's pid modulo 16: every ingestion statement touches its hour's row,
-- and concurrent writers (several processes, or the pool's connections) would otherwise queue on
-- that one row lock until commit. Readers sum the shards. A shard's counts may go negative (a
-- delete run from another backend); the sums are exact.
--
-- The migration's transaction locks both dealer tables against writes while it creates the
-- triggers and copies the sums of the rows already stored, so no write is counted twice or lost.
LOCK TABLE "dealer_rollups_hourly", "dealer_rollups_daily" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
CREATE TABLE "platform_rollups_hourly" (
	"hour" timestamp with time zone NOT NULL,
	"device" "device_class" NOT NULL,
	"shard" smallint NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"conversions" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "platform_rollups_hourly_hour_device_shard_pk" PRIMARY KEY("hour","device","shard")
);--> statement-breakpoint
CREATE TABLE "platform_rollups_daily" (
	"day" date NOT NULL,
	"device" "device_class" NOT NULL,
	"shard" smallint NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"clicks" bigint DEFAULT 0 NOT NULL,
	"conversions" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "platform_rollups_daily_day_device_shard_pk" PRIMARY KEY("day","device","shard")
);--> statement-breakpoint
INSERT INTO "platform_rollups_hourly" ("hour", "device", "shard", "impressions", "clicks", "conversions")
SELECT "hour", "device", 0, sum("impressions"), sum("clicks"), sum("conversions") FROM "dealer_rollups_hourly" GROUP BY 1, 2;--> statement-breakpoint
INSERT INTO "platform_rollups_daily" ("day", "device", "shard", "impressions", "clicks", "conversions")
SELECT "day", "device", 0, sum("impressions"), sum("clicks"), sum("conversions") FROM "dealer_rollups_daily" GROUP BY 1, 2;--> statement-breakpoint
-- TG_ARGV[0]: 'hourly' (a trigger on dealer_rollups_hourly) or 'daily' (dealer_rollups_daily).
-- Static statements, one per table and operation, so each keeps its cached plan.
CREATE FUNCTION "platform_rollups_from_dealer"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	my_shard smallint := pg_backend_pid() % 16;
BEGIN
	IF TG_OP = 'DELETE' AND current_setting('dc_banners.rollup_prune', true) = 'on' THEN
		RETURN NULL;
	END IF;
	IF TG_ARGV[0] = 'hourly' THEN
		IF TG_OP = 'INSERT' THEN
			INSERT INTO "platform_rollups_hourly" AS t ("hour", "device", "shard", "impressions", "clicks", "conversions")
			SELECT "hour", "device", my_shard, sum("impressions"), sum("clicks"), sum("conversions") FROM "new_rows" GROUP BY 1, 2 ORDER BY 1, 2
			ON CONFLICT ("hour", "device", "shard") DO UPDATE
			SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
		ELSIF TG_OP = 'UPDATE' THEN
			INSERT INTO "platform_rollups_hourly" AS t ("hour", "device", "shard", "impressions", "clicks", "conversions")
			SELECT "hour", "device", my_shard, sum(i), sum(c), sum(v) FROM (
				SELECT "hour", "device", "impressions" AS i, "clicks" AS c, "conversions" AS v FROM "new_rows"
				UNION ALL SELECT "hour", "device", -"impressions", -"clicks", -"conversions" FROM "old_rows") s
			GROUP BY 1, 2 HAVING sum(i) <> 0 OR sum(c) <> 0 OR sum(v) <> 0 ORDER BY 1, 2
			ON CONFLICT ("hour", "device", "shard") DO UPDATE
			SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
		ELSE
			INSERT INTO "platform_rollups_hourly" AS t ("hour", "device", "shard", "impressions", "clicks", "conversions")
			SELECT "hour", "device", my_shard, -sum("impressions"), -sum("clicks"), -sum("conversions") FROM "old_rows" GROUP BY 1, 2 ORDER BY 1, 2
			ON CONFLICT ("hour", "device", "shard") DO UPDATE
			SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
		END IF;
	ELSE
		IF TG_OP = 'INSERT' THEN
			INSERT INTO "platform_rollups_daily" AS t ("day", "device", "shard", "impressions", "clicks", "conversions")
			SELECT "day", "device", my_shard, sum("impressions"), sum("clicks"), sum("conversions") FROM "new_rows" GROUP BY 1, 2 ORDER BY 1, 2
			ON CONFLICT ("day", "device", "shard") DO UPDATE
			SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
		ELSIF TG_OP = 'UPDATE' THEN
			INSERT INTO "platform_rollups_daily" AS t ("day", "device", "shard", "impressions", "clicks", "conversions")
			SELECT "day", "device", my_shard, sum(i), sum(c), sum(v) FROM (
				SELECT "day", "device", "impressions" AS i, "clicks" AS c, "conversions" AS v FROM "new_rows"
				UNION ALL SELECT "day", "device", -"impressions", -"clicks", -"conversions" FROM "old_rows") s
			GROUP BY 1, 2 HAVING sum(i) <> 0 OR sum(c) <> 0 OR sum(v) <> 0 ORDER BY 1, 2
			ON CONFLICT ("day", "device", "shard") DO UPDATE
			SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
		ELSE
			INSERT INTO "platform_rollups_daily" AS t ("day", "device", "shard", "impressions", "clicks", "conversions")
			SELECT "day", "device", my_shard, -sum("impressions"), -sum("clicks"), -sum("conversions") FROM "old_rows" GROUP BY 1, 2 ORDER BY 1, 2
			ON CONFLICT ("day", "device", "shard") DO UPDATE
			SET "impressions" = t."impressions" + excluded."impressions", "clicks" = t."clicks" + excluded."clicks", "conversions" = t."conversions" + excluded."conversions";
		END IF;
	END IF;
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "platform_hourly_insert" AFTER INSERT ON "dealer_rollups_hourly" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "platform_rollups_from_dealer"('hourly');--> statement-breakpoint
CREATE TRIGGER "platform_hourly_update" AFTER UPDATE ON "dealer_rollups_hourly" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "platform_rollups_from_dealer"('hourly');--> statement-breakpoint
CREATE TRIGGER "platform_hourly_delete" AFTER DELETE ON "dealer_rollups_hourly" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "platform_rollups_from_dealer"('hourly');--> statement-breakpoint
CREATE TRIGGER "platform_daily_insert" AFTER INSERT ON "dealer_rollups_daily" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "platform_rollups_from_dealer"('daily');--> statement-breakpoint
CREATE TRIGGER "platform_daily_update" AFTER UPDATE ON "dealer_rollups_daily" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "platform_rollups_from_dealer"('daily');--> statement-breakpoint
CREATE TRIGGER "platform_daily_delete" AFTER DELETE ON "dealer_rollups_daily" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "platform_rollups_from_dealer"('daily');
