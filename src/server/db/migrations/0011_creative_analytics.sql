-- Creative analytics: each event names the creative its slot showed (an asset id, or 'cdn', 'fallback',
-- 'placeholder'; null when the beacon did not say), and the hourly rollups are kept per creative too ('' = unknown,
-- which every row stored before this migration is). Sums over creatives equal the old per-model rows.
ALTER TABLE "events" ADD COLUMN "creative" text;--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" ADD COLUMN "creative" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" DROP CONSTRAINT "event_rollups_hourly_dealer_id_hour_model_slot_type_pk";--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" ADD CONSTRAINT "event_rollups_hourly_dealer_id_hour_model_slot_type_creative_pk" PRIMARY KEY("dealer_id","hour","model","slot_type","creative");
