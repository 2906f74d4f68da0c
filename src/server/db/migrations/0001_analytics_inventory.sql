CREATE TABLE "dealer_inventory" (
	"dealer_id" text PRIMARY KEY NOT NULL,
	"data" jsonb NOT NULL,
	"upsell_rules" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_rollups_hourly" (
	"dealer_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
	"slot_type" text NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"conversions" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "event_rollups_hourly_dealer_id_hour_model_slot_type_pk" PRIMARY KEY("dealer_id","hour","model","slot_type")
);
--> statement-breakpoint
CREATE TABLE "feed_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"dealer_id" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"status" text NOT NULL,
	"vehicle_count" integer,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "inventory_feeds" (
	"dealer_id" text PRIMARY KEY NOT NULL,
	"feed_url" text NOT NULL,
	"update_frequency" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"field_mapping" jsonb NOT NULL,
	"last_updated" timestamp with time zone,
	"next_run_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dealer_inventory" ADD CONSTRAINT "dealer_inventory_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_rollups_hourly" ADD CONSTRAINT "event_rollups_hourly_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feed_runs" ADD CONSTRAINT "feed_runs_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_feeds" ADD CONSTRAINT "inventory_feeds_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "feed_runs_dealer_idx" ON "feed_runs" USING btree ("dealer_id","started_at");