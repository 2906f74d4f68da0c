-- Narrower event rows (docs/OPERATIONS.md "Disk per million events"; target 150 MB per million
-- events, events + rollups incl. indexes):
-- - dealers get an integer `key` (an identity, never reused), and events carry it (`dealer_key`, 4
--   bytes) instead of the dealer's text id (about 18 bytes). Ingestion looks the key up by id in the
--   statement that stores the batch (a read of dealers' unique index, no row lock); a deleted
--   dealer's straggling beacon finds no key, its NOT NULL refuses the batch (dead-lettered as
--   before). dealer_purges keeps the deleted dealer's key, so the purge finds its events.
-- - events lose `lead_id`: nothing read it; the conversion's lead hash is the 'lead' row of
--   event_keys (the rule "one conversion per lead"), kept as long as the events. With 8 columns the
--   row's null bitmap takes 1 byte instead of 2 and its header 24 bytes instead of 32.
-- - dealer_rollups_daily's covering index (day, dealer_id, counts) becomes an index on day alone:
--   the platform windows (every dealer, a range of days) read the day range through it and the
--   rows from the heap; the covering entries took 52 bytes a row where these take 20.
-- The events are rebuilt as migration 0022 did: the old table and its weekly partitions are
-- renamed, the new partitioned table created with the same weekly partitions
-- (event_partitions_ensure, migration 0014), every row of an existing dealer copied with its key
-- (the rows of dealers deleted and not yet purged are unreachable and not copied), the old table
-- dropped. The same SQL runs on PGlite.
ALTER TABLE "dealers" ADD COLUMN "key" integer GENERATED ALWAYS AS IDENTITY;--> statement-breakpoint
ALTER TABLE "dealers" ADD CONSTRAINT "dealers_key_unique" UNIQUE("key");--> statement-breakpoint
ALTER TABLE "dealer_purges" ADD COLUMN "dealer_key" integer;--> statement-breakpoint
DROP INDEX "dealer_rollups_daily_day_idx";--> statement-breakpoint
CREATE INDEX "dealer_rollups_daily_day_idx" ON "dealer_rollups_daily" USING btree ("day");--> statement-breakpoint
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
	"slot_type" text,
	"model" text DEFAULT '' NOT NULL,
	"page_view" text,
	"creative" text
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
CREATE INDEX "events_occurred_brin" ON "events" USING brin ("occurred_at");--> statement-breakpoint
SELECT "event_partitions_ensure"(least((SELECT min("occurred_at") FROM "events_before_keys"), now()), now() + interval '21 days');--> statement-breakpoint
INSERT INTO "events" ("occurred_at", "event", "url_id", "dealer_key", "slot_type", "model", "page_view", "creative")
SELECT e."occurred_at", e."event", e."url_id", d."key", e."slot_type", e."model", e."page_view", e."creative"
FROM "events_before_keys" e JOIN "dealers" d ON d."id" = e."dealer_id"
ORDER BY e."occurred_at";--> statement-breakpoint
DROP TABLE "events_before_keys";
