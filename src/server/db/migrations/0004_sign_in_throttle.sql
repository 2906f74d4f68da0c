CREATE TABLE "login_throttles" (
	"email_lower" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "demo_password" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- Demo accounts seeded before this migration whose row never changed since (a password reset bumps updated_at) still have their demo password: keep them on the sign-in hint.
UPDATE "users" SET "demo_password" = true WHERE lower("email") IN ('admin@dc-banners.com', 'manager@hondaofdemo.com', 'viewer@hondaofdemo.com') AND "updated_at" = "created_at";
