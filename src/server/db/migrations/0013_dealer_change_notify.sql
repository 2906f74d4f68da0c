-- Every server process caches each dealer's delivery settings (delivery/caches.ts). Migration 0007
-- raises dealers.version on every write that changes what a dealer site sees; this one tells every
-- listening process which dealer changed, so a process can trust its copy for minutes instead of
-- re-reading it every second (delivery/dealer-listener.ts).
--
-- One notification per dealer on the channel 'dealer_changed' (DEALER_CHANGED_CHANNEL) when its
-- version changes, and when the dealer is created (a process may have cached the id as unknown) or
-- deleted. NOTIFY is transactional: listeners hear it once the writing transaction commits, never
-- for a rollback, and identical notifications of one transaction are sent once (a statement that
-- bumps a dealer for many assets sends one). The payload names the schema, because channels are
-- database-wide and several schemas (tests, DATABASE_SCHEMA deployments) may share a database,
-- and the dealer's new version (null for a deleted dealer), so a process that already read that
-- version (its own write) keeps its copy:
--   {"schema": "<table schema>", "dealer": "<dealer id>", "version": <new version or null>}
CREATE FUNCTION "dealer_changed_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('dealer_changed', json_build_object('schema', TG_TABLE_SCHEMA, 'dealer', OLD.id, 'version', NULL)::text);
  ELSE
    PERFORM pg_notify('dealer_changed', json_build_object('schema', TG_TABLE_SCHEMA, 'dealer', NEW.id, 'version', NEW.version)::text);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "dealers_changed_notify_update" AFTER UPDATE ON "dealers" FOR EACH ROW
  WHEN (OLD.version IS DISTINCT FROM NEW.version OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION "dealer_changed_notify"();--> statement-breakpoint
CREATE TRIGGER "dealers_changed_notify_insert_delete" AFTER INSERT OR DELETE ON "dealers" FOR EACH ROW
  EXECUTE FUNCTION "dealer_changed_notify"();
