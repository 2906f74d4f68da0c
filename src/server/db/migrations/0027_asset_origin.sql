-- Where an asset was uploaded (domain/campaigns.ts ASSET_ORIGINS): 'campaign' = into a campaign,
-- whose deletion deletes it; 'library' = to the dealer's assets, which a campaign only borrows when
-- the dealer chooses it as a creative (deleting or detaching returns it to the library).
-- Existing campaign creatives: one older than its campaign can only have been chosen from the
-- library; a newer one is taken as uploaded into it (what deleting the campaign did to it so far).
ALTER TABLE "assets" ADD COLUMN "origin" text DEFAULT 'library' NOT NULL;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_origin" CHECK ("assets"."origin" IN ('library', 'campaign'));--> statement-breakpoint
UPDATE "assets" SET "origin" = 'campaign' WHERE "campaign_id" IS NOT NULL AND "created_at" >= (SELECT "c"."created_at" FROM "campaigns" "c" WHERE "c"."id" = "assets"."campaign_id");
