-- Named promotion campaigns (domain/campaigns.ts): a dealer's campaign has a window
-- [starts_at, ends_at) in UTC, the models and slots it covers ([] = all), a mode ('takeover' or
-- 'rotate') and a status ('draft', 'published', 'paused', 'ended'). Its creatives are the assets
-- whose campaign_id names it: such an asset is live only while its campaign is published and
-- inside the campaign's window (the campaign owns the window); assets without a campaign keep
-- their own starts_at/ends_at. Deleting a campaign deletes its creatives.
--
-- Every campaign write changes what a dealer site sees, so it raises dealers.version with the
-- statement-level function of migration 0007 (one bump per dealer and statement); the
-- dealer_changed notification of migration 0013 follows from the version change. The campaign
-- windows' starts and ends are promotion-window boundaries of the dealer read model
-- (dealer-sites/read-model.ts), so time passing a boundary needs no write.
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"dealer_id" text NOT NULL,
	"name" text NOT NULL,
	"mode" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"models" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"slots" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "campaigns_window_order" CHECK ("campaigns"."ends_at" IS NULL OR "campaigns"."ends_at" > "campaigns"."starts_at"),
	CONSTRAINT "campaigns_mode" CHECK ("campaigns"."mode" IN ('takeover', 'rotate')),
	CONSTRAINT "campaigns_status" CHECK ("campaigns"."status" IN ('draft', 'published', 'paused', 'ended'))
);--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_dealer_idx" ON "campaigns" USING btree ("dealer_id","starts_at");--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "campaign_id" uuid;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "assets_campaign_idx" ON "assets" USING btree ("campaign_id");--> statement-breakpoint
CREATE TRIGGER "campaigns_version_insert" AFTER INSERT ON "campaigns" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "dealer_version_on_rows"();--> statement-breakpoint
CREATE TRIGGER "campaigns_version_update" AFTER UPDATE ON "campaigns" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "dealer_version_on_rows"();--> statement-breakpoint
CREATE TRIGGER "campaigns_version_delete" AFTER DELETE ON "campaigns" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "dealer_version_on_rows"();
