-- Replace in place: an asset's file can be replaced keeping its id (so its statistics, window and
-- settings); each replacement is recorded here. The UPDATE bumps dealers.version through migration 0007's trigger.
ALTER TABLE "assets" ADD COLUMN "replacements" jsonb DEFAULT '[]'::jsonb NOT NULL;