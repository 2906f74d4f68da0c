-- An impression counts once per (dealer, page view, slot type), a conversion once per
-- (dealer, page view of its click). Duplicates already stored (beacons retried, or sent twice by an
-- older script) are removed first, keeping the oldest row of each key, and taken off the hourly
-- rollups that counted them, so the unique indexes below can be built on existing databases.
WITH "dup" AS (
  DELETE FROM "events" "e" USING "events" "k"
  WHERE "e"."page_view" IS NOT NULL AND "e"."event" IN ('impression', 'conversion')
    AND "k"."event" = "e"."event" AND "k"."dealer_id" = "e"."dealer_id" AND "k"."page_view" = "e"."page_view" AND "k"."id" < "e"."id"
    AND ("e"."event" = 'conversion' OR "k"."slot_type" = "e"."slot_type")
  RETURNING "e"."dealer_id", "e"."event", "e"."model", "e"."slot_type", "e"."occurred_at"
), "lost" AS (
  SELECT "dealer_id", to_timestamp(floor(extract(epoch FROM "occurred_at") / 3600) * 3600) AS "hour", "model", coalesce("slot_type", '') AS "slot_type",
    count(*) FILTER (WHERE "event" = 'impression') AS "impressions", count(*) FILTER (WHERE "event" = 'conversion') AS "conversions"
  FROM "dup" GROUP BY 1, 2, 3, 4
)
UPDATE "event_rollups_hourly" "r"
SET "impressions" = greatest(0, "r"."impressions" - "lost"."impressions"), "conversions" = greatest(0, "r"."conversions" - "lost"."conversions")
FROM "lost"
WHERE "r"."dealer_id" = "lost"."dealer_id" AND "r"."hour" = "lost"."hour" AND "r"."model" = "lost"."model" AND "r"."slot_type" = "lost"."slot_type";--> statement-breakpoint
DROP INDEX "events_impression_view_idx";--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "lead_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "events_impression_once_idx" ON "events" USING btree ("dealer_id","page_view","slot_type") WHERE event = 'impression' AND page_view IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "events_conversion_view_once_idx" ON "events" USING btree ("dealer_id","page_view") WHERE event = 'conversion' AND page_view IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "events_conversion_lead_once_idx" ON "events" USING btree ("dealer_id","lead_id") WHERE event = 'conversion' AND lead_id IS NOT NULL;--> statement-breakpoint
-- Dealers respect Do-Not-Track / Global Privacy Control unless an admin turns it off.
UPDATE "dealers" SET "security" = "security" || '{"respectDoNotTrack": true}'::jsonb WHERE "security" -> 'respectDoNotTrack' IS NULL;
