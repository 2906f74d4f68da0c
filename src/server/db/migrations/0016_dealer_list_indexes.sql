CREATE INDEX "dealers_name_id_idx" ON "dealers" USING btree (lower("name"),"id");--> statement-breakpoint
CREATE INDEX "dealers_created_at_id_idx" ON "dealers" USING btree ("created_at","id");