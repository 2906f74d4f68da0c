-- Cheap dealer deletion. Deleting a dealer used to cascade in one transaction to every row it
-- owns, events included: events have no index on dealer_id (a BRIN on occurred_at only, migration
-- 0014), so the cascade scanned every weekly partition of the year while holding the dealer's row
-- lock, on which every ingestion statement naming that dealer waited (its foreign-key checks).
-- The tables that grow with traffic (events, event_keys, event_rollups_hourly) lose their foreign
-- key to dealers; deleting a dealer deletes its row and its bounded settings rows at once (assets,
-- inventory, feeds, daily rollups still cascade through their dealer_id indexes) and records the id
-- here; the maintenance job (maintenance/dealer-purge.ts) deletes the dealer's traffic rows later
-- in bounded batches, each its own short transaction, then this row. While the row exists the id
-- cannot be given to a new dealer. A straggling ingestion statement for the deleted dealer still
-- fails: the rollup triggers write event_rollups_daily, whose foreign key remains.
ALTER TABLE "events" DROP CONSTRAINT "events_dealer_id_dealers_id_fk";--> statement-breakpoint
ALTER TABLE "event_keys" DROP CONSTRAINT "event_keys_dealer_id_dealers_id_fk";--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" DROP CONSTRAINT "event_rollups_hourly_dealer_id_dealers_id_fk";--> statement-breakpoint
CREATE TABLE "dealer_purges" (
	"dealer_id" text PRIMARY KEY NOT NULL,
	"deleted_at" timestamp with time zone DEFAULT now() NOT NULL
);
