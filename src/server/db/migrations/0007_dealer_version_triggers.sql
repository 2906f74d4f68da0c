-- The database bumps dealers.version on every write that changes what a dealer site sees,
-- so no feature has to remember to (the delivery caches are keyed by the version, delivery/caches.ts).
-- What a dealer site sees (delivery/service.ts DealerDelivery and its caches) is built from:
--   dealers: manufacturer_id, provider, asset_storage, configs, fallback_assets, branding, security;
--   manufacturers: name, primary_color, models, default_upsell_rules (every dealer of the manufacturer);
--   dealer_inventory: upsell_rules, data (the models' priority scores);
--   assets: every row of the dealer (candidates, the set of models with assets).

-- dealers: a BEFORE UPDATE row trigger raises NEW.version itself, so it never recurses (the bumps
-- below only change `version`, which this trigger does not count as a delivery change). The version
-- never goes down: an import that writes an older version number gets the current one plus one.
CREATE FUNCTION "dealer_version_on_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.version <= OLD.version AND (
    NEW.manufacturer_id IS DISTINCT FROM OLD.manufacturer_id OR NEW.provider IS DISTINCT FROM OLD.provider
    OR NEW.asset_storage IS DISTINCT FROM OLD.asset_storage OR NEW.configs IS DISTINCT FROM OLD.configs
    OR NEW.fallback_assets IS DISTINCT FROM OLD.fallback_assets OR NEW.branding IS DISTINCT FROM OLD.branding
    OR NEW.security IS DISTINCT FROM OLD.security
  ) THEN
    NEW.version := OLD.version + 1;
  ELSIF NEW.version < OLD.version THEN
    NEW.version := OLD.version;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "dealers_version_bump" BEFORE UPDATE ON "dealers" FOR EACH ROW EXECUTE FUNCTION "dealer_version_on_update"();--> statement-breakpoint

-- assets: one bump per dealer and statement (transition tables), so deleting many assets at once
-- ('Free up space') costs one dealer update, not one per asset.
CREATE FUNCTION "dealer_version_on_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "dealers" SET "version" = "version" + 1 WHERE "id" IN (SELECT "dealer_id" FROM "new_rows");
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "dealers" SET "version" = "version" + 1 WHERE "id" IN (SELECT "dealer_id" FROM "old_rows");
  ELSE
    UPDATE "dealers" SET "version" = "version" + 1
    WHERE "id" IN (SELECT "dealer_id" FROM "old_rows" UNION SELECT "dealer_id" FROM "new_rows");
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "assets_version_insert" AFTER INSERT ON "assets" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "dealer_version_on_rows"();--> statement-breakpoint
CREATE TRIGGER "assets_version_update" AFTER UPDATE ON "assets" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "dealer_version_on_rows"();--> statement-breakpoint
CREATE TRIGGER "assets_version_delete" AFTER DELETE ON "assets" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "dealer_version_on_rows"();--> statement-breakpoint

-- dealer_inventory: one row per dealer; only its rules and data feed the page plans (not source or updated_at).
CREATE FUNCTION "dealer_version_on_inventory"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "dealers" SET "version" = "version" + 1 WHERE "id" = OLD.dealer_id;
  ELSE
    UPDATE "dealers" SET "version" = "version" + 1 WHERE "id" = NEW.dealer_id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "dealer_inventory_version_insert" AFTER INSERT OR DELETE ON "dealer_inventory" FOR EACH ROW EXECUTE FUNCTION "dealer_version_on_inventory"();--> statement-breakpoint
CREATE TRIGGER "dealer_inventory_version_update" AFTER UPDATE ON "dealer_inventory" FOR EACH ROW
  WHEN (OLD.upsell_rules IS DISTINCT FROM NEW.upsell_rules OR OLD.data IS DISTINCT FROM NEW.data)
  EXECUTE FUNCTION "dealer_version_on_inventory"();--> statement-breakpoint

-- manufacturers: a catalogue change bumps every dealer of the manufacturer.
CREATE FUNCTION "dealer_version_on_manufacturer"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "dealers" SET "version" = "version" + 1 WHERE "manufacturer_id" = NEW.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "manufacturers_version_update" AFTER UPDATE ON "manufacturers" FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.primary_color IS DISTINCT FROM NEW.primary_color
    OR OLD.models IS DISTINCT FROM NEW.models OR OLD.default_upsell_rules IS DISTINCT FROM NEW.default_upsell_rules)
  EXECUTE FUNCTION "dealer_version_on_manufacturer"();
