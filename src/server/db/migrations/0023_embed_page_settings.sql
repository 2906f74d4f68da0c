-- Two dealer settings the embed script reads, kept in dealers.configs beside the other settings the
-- dealer edits on its Configuration screen: `dataLayerEvents` (push dc_banner_view / dc_banner_click
-- to the page's window.dataLayer; on) and `emptySlots` ('placeholder', the spec's behaviour, or
-- 'hide': a slot whose model has no creative reserves no box and counts nothing). Existing dealers
-- get the defaults. No trigger change: dealers.configs is already one of the columns whose change
-- raises dealers.version (dealer_version_on_update, migration 0007), so the served script and the
-- delivery caches follow a change of either setting.
UPDATE "dealers" SET "configs" = "configs" || '{"dataLayerEvents": true}'::jsonb WHERE "configs" -> 'dataLayerEvents' IS NULL;--> statement-breakpoint
UPDATE "dealers" SET "configs" = "configs" || '{"emptySlots": "placeholder"}'::jsonb WHERE "configs" -> 'emptySlots' IS NULL;
