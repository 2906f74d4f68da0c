-- Page URLs stored once (docs/OPERATIONS.md "Disk per million events"). Every event carried its
-- page URL as text (about 60 bytes: origin, path and the providers' model filters), while a site has
-- few distinct pages; `event_urls` holds each distinct URL once and events carry its integer id
-- (`url_id`, NULL where the URL is unknown, the '' of before). The dictionary is global (a URL names
-- its dealer's site by its origin) and rows are never deleted, so an id a server process cached
-- stays valid (tracking/service.ts UrlIds); the ingestion adds the URLs it has not seen in one
-- INSERT ... ON CONFLICT per batch. (A URL too long for the unique index, which only a crafted
-- beacon can send: at most 2000 characters come in, is refused with a program-limit error, and its
-- event goes to event_dead_letters like every event the database refuses.)
-- The events are rebuilt with their columns in alignment order (fixed-width first: no padding
-- between the id columns and the texts), which also drops the space of the client timestamp removed
-- by migration 0017: the old table and its weekly partitions are renamed, the new partitioned table
-- created with the same weekly partitions (event_partitions_ensure, migration 0014), every row
-- copied with its URL's id, the old table dropped. The same SQL runs on PGlite.
CREATE TABLE "event_urls" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"url" text NOT NULL,
	CONSTRAINT "event_urls_url_unique" UNIQUE("url")
);--> statement-breakpoint
INSERT INTO "event_urls" ("url") SELECT DISTINCT "url" FROM "events" WHERE "url" <> '' ORDER BY 1;--> statement-breakpoint
DROP INDEX "events_occurred_brin";--> statement-breakpoint
ALTER TABLE "events" RENAME TO "events_before_urls";--> statement-breakpoint
DO $$
DECLARE
	part record;
BEGIN
	FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"events_before_urls"'::regclass LOOP
		EXECUTE format('ALTER TABLE %I RENAME TO %I', part.relname, 'before_urls_' || part.relname);
	END LOOP;
END
$$;--> statement-breakpoint
CREATE TABLE "events" (
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"event" "event_kind" NOT NULL,
	"url_id" integer,
	"dealer_id" text NOT NULL,
	"slot_type" text,
	"model" text DEFAULT '' NOT NULL,
	"page_view" text,
	"lead_id" text,
	"creative" text
) PARTITION BY RANGE ("occurred_at");--> statement-breakpoint
CREATE INDEX "events_occurred_brin" ON "events" USING brin ("occurred_at");--> statement-breakpoint
SELECT "event_partitions_ensure"(least((SELECT min("occurred_at") FROM "events_before_urls"), now()), now() + interval '21 days');--> statement-breakpoint
INSERT INTO "events" ("occurred_at", "event", "url_id", "dealer_id", "slot_type", "model", "page_view", "lead_id", "creative")
SELECT e."occurred_at", e."event", u."id", e."dealer_id", e."slot_type", e."model", e."page_view", e."lead_id", e."creative"
FROM "events_before_urls" e LEFT JOIN "event_urls" u ON u."url" = e."url" AND e."url" <> ''
ORDER BY e."occurred_at";--> statement-breakpoint
DROP TABLE "events_before_urls";
