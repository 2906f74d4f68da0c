ALTER TABLE "assets" ADD COLUMN "content_hash" text;--> statement-breakpoint
CREATE INDEX "assets_dealer_hash_idx" ON "assets" USING btree ("dealer_id","content_hash");--> statement-breakpoint
-- Assets stored before this migration get the hash of their bytes, so a second upload of the same file is recognised.
UPDATE "assets" SET "content_hash" = encode(sha256(b."data"), 'hex') FROM "asset_blobs" b WHERE b."asset_id" = "assets"."id";
