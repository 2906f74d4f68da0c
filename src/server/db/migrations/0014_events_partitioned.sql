-- Event storage that grows by time. `events` becomes a native partitioned table, PARTITION BY
-- RANGE (occurred_at), one partition per UTC week (Monday 00:00 to the next), named
-- events_YYYYMMDD after its first day. Weekly, not monthly: with EVENT_RETENTION_DAYS = 90 a whole
-- partition is at most 7 days past the cutoff when retention drops it (a month would keep up to a
-- third more rows on disk), and the 14-16 partitions it keeps are few for the planner (queries on
-- events prune to their weeks: the BRIN lookup of lastEventAt runs on one). No DEFAULT
-- partition: partitions are created ahead (maintenance/partitions.ts) and on demand by the writer
-- before a batch that needs one, and a DEFAULT partition holding rows would make every later
-- CREATE ... PARTITION OF scan it and fail on the rows it holds.
--
-- No primary key and no unique index on events: a unique index on a partitioned table must contain
-- occurred_at, so it cannot say "once per page view" across weeks. Counting once moves to
-- `event_keys` (one small row per counted key, kept only as long as a retry, click or conversion can
-- refer to it; lead keys for the retention period), inserted with ON CONFLICT DO NOTHING in the same
-- statement as the event (tracking/service.ts). The only index on events is a BRIN on occurred_at.
--
-- Existing rows move in this migration's transaction: the old table is renamed, the partitioned one
-- created with its partitions (every week holding rows, through three weeks ahead), the rows copied,
-- the keys of the recent events recorded, the old table dropped. The same SQL runs on PGlite.
ALTER TABLE "events" RENAME TO "events_unpartitioned";--> statement-breakpoint
CREATE TABLE "events" (
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"dealer_id" text NOT NULL,
	"event" text NOT NULL,
	"slot_type" text,
	"model" text DEFAULT '' NOT NULL,
	"url" text DEFAULT '' NOT NULL,
	"client_timestamp" text,
	"page_view" text,
	"lead_id" text,
	"creative" text
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_new_dealer_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_occurred_brin" ON "events" USING brin ("occurred_at");--> statement-breakpoint
-- Creates the weekly partitions of events covering [from_at, until_at) that do not exist yet, in the
-- schema of `events`; returns how many it created. A concurrent creator of the same week is not an
-- error. Called by this migration and by the server (maintenance/partitions.ts).
CREATE FUNCTION "event_partitions_ensure"(from_at timestamptz, until_at timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	week timestamptz := date_trunc('week', from_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
	part text;
	created integer := 0;
BEGIN
	WHILE week < until_at LOOP
		part := 'events_' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD');
		IF to_regclass(quote_ident(part)) IS NULL THEN
			BEGIN
				EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)', part,
					to_char(week AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS+00'),
					to_char((week + interval '168 hours') AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS+00'));
				created := created + 1;
			EXCEPTION WHEN duplicate_table OR unique_violation THEN
				NULL;
			END;
		END IF;
		week := week + interval '168 hours';
	END LOOP;
	RETURN created;
END
$$;--> statement-breakpoint
SELECT "event_partitions_ensure"(least((SELECT min("occurred_at") FROM "events_unpartitioned"), now()), now() + interval '21 days');--> statement-breakpoint
INSERT INTO "events" ("occurred_at", "dealer_id", "event", "slot_type", "model", "url", "client_timestamp", "page_view", "lead_id", "creative")
SELECT "occurred_at", "dealer_id", "event", "slot_type", "model", "url", "client_timestamp", "page_view", "lead_id", "creative"
FROM "events_unpartitioned" ORDER BY "occurred_at";--> statement-breakpoint
CREATE TABLE "event_keys" (
	"dealer_id" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"slot_type" text DEFAULT '' NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"model" text DEFAULT '' NOT NULL,
	"creative" text,
	CONSTRAINT "event_keys_dealer_id_kind_key_slot_type_pk" PRIMARY KEY("dealer_id","kind","key","slot_type")
);--> statement-breakpoint
ALTER TABLE "event_keys" ADD CONSTRAINT "event_keys_dealer_id_dealers_id_fk" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_keys_at_idx" ON "event_keys" USING btree ("at");--> statement-breakpoint
-- The keys of the events still inside their windows (EVENT_KEY_TTL_MS, two days), and of every
-- stored lead, so counting once holds across the migration.
INSERT INTO "event_keys" ("dealer_id", "kind", "key", "slot_type", "at", "model", "creative")
SELECT DISTINCT ON ("dealer_id", "event", "page_view", coalesce("slot_type", ''))
	"dealer_id", "event", "page_view", CASE WHEN "event" = 'conversion' THEN '' ELSE coalesce("slot_type", '') END, "occurred_at", "model", "creative"
FROM "events_unpartitioned"
WHERE "page_view" IS NOT NULL AND "event" IN ('impression', 'click', 'conversion') AND "occurred_at" >= now() - interval '2 days'
ORDER BY "dealer_id", "event", "page_view", coalesce("slot_type", ''), "occurred_at"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "event_keys" ("dealer_id", "kind", "key", "slot_type", "at")
SELECT "dealer_id", 'lead', "lead_id", '', max("occurred_at") FROM "events_unpartitioned"
WHERE "event" = 'conversion' AND "lead_id" IS NOT NULL GROUP BY 1, 2, 3, 4
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "events_unpartitioned";--> statement-breakpoint
ALTER TABLE "events" RENAME CONSTRAINT "events_new_dealer_id_fk" TO "events_dealer_id_dealers_id_fk";
