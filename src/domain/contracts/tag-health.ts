/**
 * Contract of the Script page's tag health (domain/tag-health.ts): GET
 * /api/dealers/:dealerId/tag-health (what became of the beacons the dealer's pages sent) and GET
 * /api/dealers/:dealerId/tag-health/page-check?url= ("Test my page": what a page at that address
 * would hit, worked out from the dealer's settings without loading the page).
 */
import { z } from 'zod';
import { TAG_HEALTH_REASONS } from '../tag-health';

const reasonSchema = z.enum(TAG_HEALTH_REASONS);

/** When beacons of one origin and slot type were last seen and last counted. */
export const tagSeenSchema = z.object({
  /** The page origin (`https://www.example.com`), 'none' (no Origin or Referer) or 'other' (past the per-dealer cap). */
  origin: z.string(),
  /** header, primary, upsell, or '' for beacons that name no slot (conversions). */
  slotType: z.string(),
  /** ISO 8601. */
  lastSeenAt: z.string(),
  /** ISO 8601; null when no beacon of this origin and slot was ever counted. */
  lastCountedAt: z.string().nullable(),
});

/** GET /api/dealers/:dealerId/tag-health. */
export const tagHealthSchema = z.object({
  /** Hours the counts cover (the last 24). */
  windowHours: z.number(),
  /** Start of the counted window (ISO 8601, a whole UTC hour). */
  since: z.string(),
  /** Newest first. */
  seen: z.array(tagSeenSchema),
  /** Beacons of the window per origin and reason ('counted' or why not). */
  counts: z.array(z.object({ origin: z.string(), reason: reasonSchema, beacons: z.number() })),
});
export type TagHealth = z.infer<typeof tagHealthSchema>;

/** GET /api/dealers/:dealerId/tag-health/page-check query: the page address as the dealer typed it. */
export const pageCheckQuerySchema = z.object({ url: z.string().trim().min(1, 'Enter the address of a page of your site').max(2048) });

/** One finding of "Test my page". */
export const pageCheckFindingSchema = z.object({
  /** What was checked: address, https, domain, www, blocklist, opted-out. */
  check: z.enum(['address', 'https', 'domain', 'www', 'blocklist', 'opted-out']),
  /** problem: beacons from this page are refused or blocked; warning: some are; ok: passes; info: worth knowing. */
  status: z.enum(['ok', 'problem', 'warning', 'info']),
  /** The tag-health reason this finding would be counted under, when it is one. */
  reason: reasonSchema.nullable(),
  /** One sentence: what was found and what to do. */
  message: z.string(),
});

/** GET /api/dealers/:dealerId/tag-health/page-check. */
export const pageCheckSchema = z.object({
  /** The address checked (with https:// added when it had no scheme). */
  url: z.string(),
  /** Its origin, as beacons from it are counted under; null when the address is not an http(s) address. */
  origin: z.string().nullable(),
  findings: z.array(pageCheckFindingSchema),
  /** Beacons already seen from that origin (its rows of the tag health). */
  seen: z.array(tagSeenSchema),
  /** Beacons from that origin in the last 24 h, by reason. */
  counts: z.array(z.object({ reason: reasonSchema, beacons: z.number() })),
});
export type PageCheck = z.infer<typeof pageCheckSchema>;
export type PageCheckFinding = z.infer<typeof pageCheckFindingSchema>;
