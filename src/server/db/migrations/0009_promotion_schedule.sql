-- Promotion schedule: an asset's optional window [starts_at, ends_at) in UTC, and the dealer's IANA
-- time zone the window is entered in (null = the server's zone). Migration 0007's statement-level
-- assets_version_update trigger fires on any UPDATE of an asset row, so setting or clearing a window
-- bumps dealers.version like any other asset write; time_zone is not a delivery column (windows are
-- stored in UTC), so dealer_version_on_update rightly ignores it. Time passing writes nothing: the
-- delivery caches expire at the next window boundary themselves (delivery/service.ts).
ALTER TABLE "assets" ADD COLUMN "starts_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dealers" ADD COLUMN "time_zone" text;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_window_order" CHECK ("assets"."ends_at" IS NULL OR "assets"."starts_at" IS NULL OR "assets"."ends_at" > "assets"."starts_at");