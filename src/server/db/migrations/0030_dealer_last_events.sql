-- Each dealer's newest recorded event time ('Last updated' of dealer analytics and the portfolio
-- table), written by ingestion in the same statement as the events (tracking/service.ts
-- withRollup). Before, the time was read from the raw events of the dealer's newest rollup hour,
-- a scan of that hour's rows in the week's partition: they are stored in arrival order, so the
-- read grew with every dealer's traffic in that hour (about 100 ms of a 110-130 ms dealer
-- analytics call at 20M events; at the platform's traffic an hour holds over a million events).
-- Not backfilled (that would read every stored event): until a dealer's next event the read falls
-- back to the raw events of its newest hour, as before (reporting/service.ts lastEventsAt).
CREATE TABLE "dealer_last_events" (
	"dealer_key" integer PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "dealer_last_events_dealer_key_dealers_key_fk" FOREIGN KEY ("dealer_key") REFERENCES "dealers"("key") ON DELETE cascade ON UPDATE no action
);
