CREATE TABLE "tag_health_hourly" (
	"dealer_id" text NOT NULL,
	"origin" text NOT NULL,
	"reason" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"beacons" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "tag_health_hourly_dealer_id_origin_reason_hour_pk" PRIMARY KEY("dealer_id","origin","reason","hour")
);
--> statement-breakpoint
CREATE TABLE "tag_last_seen" (
	"dealer_id" text NOT NULL,
	"origin" text NOT NULL,
	"slot_type" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"last_counted_at" timestamp with time zone,
	CONSTRAINT "tag_last_seen_dealer_id_origin_slot_type_pk" PRIMARY KEY("dealer_id","origin","slot_type")
);
--> statement-breakpoint
ALTER TABLE "tag_health_hourly" ADD CONSTRAINT "tag_health_hourly_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_last_seen" ADD CONSTRAINT "tag_last_seen_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tag_health_hourly_hour_idx" ON "tag_health_hourly" USING btree ("hour");