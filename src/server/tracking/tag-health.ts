/**
 * Tag health counters (domain/tag-health.ts): what became of the beacons a dealer's pages sent,
 * for the Script page's "Is my tag working?" panel.
 *
 * The beacon intake (intake.ts, shared by the route and the beacon hot path) calls `record` once per
 * beacon that named a known dealer: a map increment, no I/O. Counts wait in memory and are written
 * in one transaction every TAG_HEALTH_FLUSH_MS (and when the app closes, and before a read), as
 * upserts that add (tag_health_hourly) or keep the later time (tag_last_seen), so processes
 * sharing a database never overwrite one another. Nothing personal is kept: a dealer id, the page's
 * origin (`scheme://host[:port]`), the slot type, the reason and times.
 *
 * Bounds: at most TAG_HEALTH_ORIGINS_PER_DEALER origins per dealer are stored; beacons from further
 * origins (a hostile client can send any Origin header) are counted under TAG_OTHER_ORIGIN. The cap is
 * applied in memory per flush window and at the flush against the origins already stored (two
 * processes flushing at once may each add up to the cap: a bound of cap × processes). At most
 * MAX_PENDING_KEYS counters wait in memory; beyond, further ones are dropped (counted in `dropped`)
 * until the next flush. A write that fails for an outage keeps its counts for the next attempt,
 * within that bound; one that fails on the data (a dealer deleted since: foreign key) drops them.
 */
import { and, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { isDataError } from './service';
import { dealers, tagHealthHourly, tagLastSeen } from '../db/schema';
import {
  TAG_HEALTH_KEPT_DAYS,
  TAG_HEALTH_ORIGINS_PER_DEALER,
  TAG_HEALTH_WINDOW_HOURS,
  TAG_NO_ORIGIN,
  TAG_OTHER_ORIGIN,
  TAG_REFUSAL_REASONS,
  beaconOrigin,
  tagHealthSince,
  type TagHealthReason,
  type TagRefusalReason,
} from '../../domain/tag-health';
import type { PortfolioTagHealth } from '../../domain/admin';
import type { PageCheck, PageCheckFinding, TagHealth } from '../../domain/contracts/tag-health';
import type { Security } from '../../domain/schemas';
import { deploymentBlocklistMatches } from '../../domain/blocklist-names';
import { hostAllowed } from '../delivery/public-policy';

/** How often the counters are written, milliseconds. */
export const TAG_HEALTH_FLUSH_MS = 5000;
/** Most counters (hourly and last-seen entries together) waiting in memory. */
export const MAX_PENDING_KEYS = 20_000;
/** tag_last_seen rows not updated for this many days are deleted (which frees their origin's place under the cap). */
export const TAG_LAST_SEEN_KEPT_DAYS = 30;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Count {
  dealerId: string;
  origin: string;
  reason: TagHealthReason;
  /** Start of the UTC hour, ms since the epoch. */
  hour: number;
  beacons: number;
}
interface Seen {
  dealerId: string;
  origin: string;
  slotType: string;
  lastSeen: number;
  lastCounted: number | null;
}

/** The pending counters of one flush window. */
class Window {
  counts = new Map<string, Count>();
  seen = new Map<string, Seen>();
  /** Origins per dealer in this window (the in-memory cap). */
  origins = new Map<string, Set<string>>();
  get size(): number {
    return this.counts.size + this.seen.size;
  }
}

/** The tag health counters of one app (`app.tagHealth`, see the module doc). */
export class TagHealthRecorder {
  private window = new Window();
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  /** Counters dropped because MAX_PENDING_KEYS were waiting (since start). */
  dropped = 0;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Counts one beacon of a known dealer. Cheap and synchronous (the hot path calls it).
   * @param origin the page origin (domain/tag-health.ts beaconOrigin)
   * @param slotType the beacon's slot type, '' when it names none
   */
  record(dealerId: string, origin: string, slotType: string, reason: TagHealthReason): void {
    const w = this.window;
    const at = this.now().getTime();
    let origins = w.origins.get(dealerId);
    if (!origins) w.origins.set(dealerId, (origins = new Set()));
    if (!origins.has(origin) && origin !== TAG_OTHER_ORIGIN && origin !== TAG_NO_ORIGIN) {
      if (origins.size >= TAG_HEALTH_ORIGINS_PER_DEALER) origin = TAG_OTHER_ORIGIN;
      else origins.add(origin);
    }
    const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
    const countKey = `${dealerId}\n${origin}\n${reason}\n${hour}`;
    const seenKey = `${dealerId}\n${origin}\n${slotType}`;
    const count = w.counts.get(countKey);
    const seen = w.seen.get(seenKey);
    if ((!count || !seen) && w.size >= MAX_PENDING_KEYS) {
      this.dropped += 1;
      return;
    }
    if (count) count.beacons += 1;
    else w.counts.set(countKey, { dealerId, origin, reason, hour, beacons: 1 });
    const counted = reason === 'counted' ? at : null;
    if (seen) {
      seen.lastSeen = Math.max(seen.lastSeen, at);
      if (counted !== null) seen.lastCounted = Math.max(seen.lastCounted ?? 0, counted);
    } else w.seen.set(seenKey, { dealerId, origin, slotType, lastSeen: at, lastCounted: counted });
  }

  /** Writes the counters every `intervalMs` (0: never; tests and reads call flush). */
  start(intervalMs = TAG_HEALTH_FLUSH_MS): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what waits (one attempt). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Writes the waiting counters (one attempt; a failure is logged and they wait for the next). Never rejects. */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.write());
    return this.chain;
  }

  private async write(): Promise<void> {
    const w = this.window;
    if (w.size === 0) return;
    this.window = new Window();
    try {
      const outside = await this.overCap(w);
      const counts = merge([...w.counts.values()].map((c) => ({ ...c, origin: outside(c.dealerId, c.origin) })), (c) => `${c.dealerId}\n${c.origin}\n${c.reason}\n${c.hour}`, (a, b) => void (a.beacons += b.beacons));
      const seen = merge([...w.seen.values()].map((s) => ({ ...s, origin: outside(s.dealerId, s.origin) })), (s) => `${s.dealerId}\n${s.origin}\n${s.slotType}`, (a, b) => {
        a.lastSeen = Math.max(a.lastSeen, b.lastSeen);
        a.lastCounted = a.lastCounted === null ? b.lastCounted : b.lastCounted === null ? a.lastCounted : Math.max(a.lastCounted, b.lastCounted);
      });
      await this.db.transaction(async (tx) => {
        const h = tagHealthHourly;
        await tx
          .insert(h)
          .values(counts.map((c) => ({ dealerId: c.dealerId, origin: c.origin, reason: c.reason, hour: new Date(c.hour), beacons: c.beacons })))
          .onConflictDoUpdate({ target: [h.dealerId, h.origin, h.reason, h.hour], set: { beacons: sql`${h.beacons} + excluded.beacons` } });
        const s = tagLastSeen;
        await tx
          .insert(s)
          .values(seen.map((x) => ({ dealerId: x.dealerId, origin: x.origin, slotType: x.slotType, lastSeenAt: new Date(x.lastSeen), lastCountedAt: x.lastCounted === null ? null : new Date(x.lastCounted) })))
          .onConflictDoUpdate({
            target: [s.dealerId, s.origin, s.slotType],
            set: {
              lastSeenAt: sql`greatest(${s.lastSeenAt}, excluded.last_seen_at)`,
              lastCountedAt: sql`greatest(${s.lastCountedAt}, excluded.last_counted_at)`,
            },
          });
      });
    } catch (err) {
      // A data error (a dealer deleted meanwhile: foreign key) would fail every retry: those counters are dropped.
      if (isDataError(err)) {
        const gone = await this.deletedDealers(w).catch(() => null);
        if (gone && gone.size > 0) {
          // Without the deleted dealers' counters, the rest is written at the next flush.
          this.restore(without(w, gone));
          return;
        }
        this.log.warn({ err, counters: w.size }, 'tag health counters not written (data error); dropped');
        return;
      }
      // An outage: the counts wait for the next flush, within the bound.
      this.log.warn({ err, counters: w.size }, 'tag health counters not written; kept for the next attempt');
      this.restore(w);
    }
  }

  /** The dealers of a window that no longer exist. */
  private async deletedDealers(w: Window): Promise<Set<string>> {
    const ids = [...w.origins.keys()];
    const rows = await this.db.select({ id: dealers.id }).from(dealers).where(inArray(dealers.id, ids));
    const present = new Set(rows.map((r) => r.id));
    return new Set(ids.filter((id) => !present.has(id)));
  }

  /** Puts the counters of a window whose write failed back into the current one, within MAX_PENDING_KEYS. */
  private restore(failed: Window): void {
    const w = this.window;
    for (const [key, c] of failed.counts) {
      const kept = w.counts.get(key);
      if (kept) kept.beacons += c.beacons;
      else if (w.size < MAX_PENDING_KEYS) w.counts.set(key, c);
    }
    for (const [key, x] of failed.seen) {
      const kept = w.seen.get(key);
      if (kept) {
        kept.lastSeen = Math.max(kept.lastSeen, x.lastSeen);
        kept.lastCounted = Math.max(kept.lastCounted ?? 0, x.lastCounted ?? 0) || null;
      } else if (w.size < MAX_PENDING_KEYS) w.seen.set(key, x);
    }
    for (const [id, origins] of failed.origins) {
      const have = w.origins.get(id);
      if (!have) w.origins.set(id, origins);
      else for (const o of origins) if (have.size < TAG_HEALTH_ORIGINS_PER_DEALER) have.add(o);
    }
  }

  /**
   * The origin each pending origin is stored under: itself when the dealer already has it stored
   * or has room under the cap (taken in the order first seen), else TAG_OTHER_ORIGIN.
   */
  private async overCap(w: Window): Promise<(dealerId: string, origin: string) => string> {
    const dealerIds = [...w.origins.keys()];
    const stored = new Map<string, Set<string>>();
    for (const id of dealerIds) stored.set(id, new Set());
    const rows = await this.db
      .select({ dealerId: tagLastSeen.dealerId, origin: tagLastSeen.origin })
      .from(tagLastSeen)
      .where(inArray(tagLastSeen.dealerId, dealerIds))
      .groupBy(tagLastSeen.dealerId, tagLastSeen.origin);
    for (const r of rows) stored.get(r.dealerId)?.add(r.origin);
    const fixed = (o: string) => o === TAG_OTHER_ORIGIN || o === TAG_NO_ORIGIN;
    const kept = new Map<string, Set<string>>();
    for (const [id, origins] of w.origins) {
      const have = stored.get(id)!;
      let room = TAG_HEALTH_ORIGINS_PER_DEALER - [...have].filter((o) => !fixed(o)).length;
      const keep = new Set<string>();
      for (const o of origins) {
        if (have.has(o)) keep.add(o);
        else if (room > 0) {
          keep.add(o);
          room -= 1;
        }
      }
      kept.set(id, keep);
    }
    return (dealerId, origin) => (fixed(origin) || kept.get(dealerId)?.has(origin) ? origin : TAG_OTHER_ORIGIN);
  }

  /**
   * A dealer's tag health as the Script page shows it (after writing what waits): the last beacon
   * seen and counted per origin and slot type, newest first, and the beacons of the last
   * TAG_HEALTH_WINDOW_HOURS by origin and reason.
   */
  async read(dealerId: string): Promise<TagHealth> {
    await this.flush();
    const now = this.now();
    const since = tagHealthSince(now);
    const s = tagLastSeen;
    const seen = await this.db.select().from(s).where(eq(s.dealerId, dealerId)).orderBy(sql`${s.lastSeenAt} DESC`, s.origin, s.slotType);
    const h = tagHealthHourly;
    const counts = await this.db
      .select({ origin: h.origin, reason: h.reason, beacons: sql<number>`sum(${h.beacons})::int` })
      .from(h)
      .where(and(eq(h.dealerId, dealerId), gte(h.hour, since)))
      .groupBy(h.origin, h.reason)
      .orderBy(h.origin, h.reason);
    return {
      windowHours: TAG_HEALTH_WINDOW_HOURS,
      since: since.toISOString(),
      seen: seen.map((r) => ({ origin: r.origin, slotType: r.slotType, lastSeenAt: r.lastSeenAt.toISOString(), lastCountedAt: r.lastCountedAt?.toISOString() ?? null })),
      counts: counts.map((c) => ({ origin: c.origin, reason: c.reason as TagHealthReason, beacons: Number(c.beacons) })),
    };
  }
}

/**
 * The tag health of many dealers at once (the admin's portfolio table): for each of `dealerIds`,
 * the beacons since `since` (tagHealthSince) counted, refused or dropped in all, and by reason, in
 * one grouped read of tag_health_hourly (its key starts with the dealer id). A dealer without
 * counters gets zeros. Callers flush `app.tagHealth` first so pending counts are included.
 */
export async function tagHealthTotals(db: Db, dealerIds: string[], since: Date): Promise<Map<string, PortfolioTagHealth>> {
  const out = new Map<string, PortfolioTagHealth>();
  for (const id of dealerIds) out.set(id, { counted: 0, refused: 0, byReason: Object.fromEntries(TAG_REFUSAL_REASONS.map((r) => [r, 0])) as Record<TagRefusalReason, number> });
  if (dealerIds.length === 0) return out;
  const h = tagHealthHourly;
  const rows = await db
    .select({ dealerId: h.dealerId, reason: h.reason, beacons: sql<number>`sum(${h.beacons})::int`.mapWith(Number) })
    .from(h)
    .where(and(inArray(h.dealerId, dealerIds), gte(h.hour, since)))
    .groupBy(h.dealerId, h.reason);
  for (const r of rows) {
    const d = out.get(r.dealerId)!;
    if (r.reason === 'counted') d.counted += r.beacons;
    else if ((TAG_REFUSAL_REASONS as readonly string[]).includes(r.reason)) {
      d.byReason[r.reason as TagRefusalReason] += r.beacons;
      d.refused += r.beacons;
    }
  }
  return out;
}

/**
 * SQL of a derived table (dealer_id, refused): each dealer's beacons refused or dropped since
 * `since`, for sorting every matching dealer by it (dealers without refusals have no row).
 */
export function refusedTotalsSql(since: Date): SQL {
  const h = tagHealthHourly;
  return sql`SELECT ${h.dealerId} AS dealer_id, sum(${h.beacons})::int AS refused FROM ${h} WHERE ${h.hour} >= ${since.toISOString()}::timestamptz AND ${h.reason} <> 'counted' GROUP BY ${h.dealerId}`;
}

/** A window without the counters of `dealerIds`. */
function without(w: Window, dealerIds: Set<string>): Window {
  const out = new Window();
  for (const [k, c] of w.counts) if (!dealerIds.has(c.dealerId)) out.counts.set(k, c);
  for (const [k, x] of w.seen) if (!dealerIds.has(x.dealerId)) out.seen.set(k, x);
  for (const [id, o] of w.origins) if (!dealerIds.has(id)) out.origins.set(id, o);
  return out;
}

/** Entries merged by key (`into` adds b into a); the order of first appearance. */
function merge<T>(items: T[], key: (t: T) => string, into: (a: T, b: T) => void): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    const have = byKey.get(k);
    if (have) into(have, item);
    else byKey.set(k, item);
  }
  return [...byKey.values()];
}

/**
 * Deletes hourly tag-health counters older than TAG_HEALTH_KEPT_DAYS and last-seen rows not updated
 * for TAG_LAST_SEEN_KEPT_DAYS (the retention job). @returns the rows deleted.
 */
export async function pruneTagHealth(db: Db, now: Date): Promise<number> {
  const hourly = await db
    .delete(tagHealthHourly)
    .where(lt(tagHealthHourly.hour, new Date(now.getTime() - TAG_HEALTH_KEPT_DAYS * DAY_MS)))
    .returning({ x: tagHealthHourly.dealerId });
  const seen = await db
    .delete(tagLastSeen)
    .where(lt(tagLastSeen.lastSeenAt, new Date(now.getTime() - TAG_LAST_SEEN_KEPT_DAYS * DAY_MS)))
    .returning({ x: tagLastSeen.dealerId });
  return hourly.length + seen.length;
}

/** What pageCheck reads of the dealer and this deployment. */
export interface PageCheckContext {
  dealerId: string;
  security: Security;
  /** PUBLIC_ORIGIN, where the page loads the script from and sends beacons to. */
  publicOrigin: string;
  /** servesLoopbackOnly(PUBLIC_ORIGIN): requireHttps does not apply. */
  loopbackOnly: boolean;
  /** The reader is an administrator, who changes the settings the dealer's staff have to ask for. */
  admin: boolean;
}

/**
 * "Test my page": which refusals beacons from a page at `input` would meet, from the dealer's
 * settings and this deployment's addresses alone: the page is never loaded (no request leaves the
 * server). `input` may lack its scheme (https:// is assumed). `health` is the dealer's tag health
 * (TagHealthRecorder.read), of which the page's origin's rows are returned.
 */
export function pageCheck(input: string, ctx: PageCheckContext, health: TagHealth): PageCheck {
  const findings: PageCheckFinding[] = [];
  const add = (check: PageCheckFinding['check'], status: PageCheckFinding['status'], message: string, reason: PageCheckFinding['reason'] = null) =>
    findings.push({ check, status, reason, message });
  const url = /^[a-z][a-z0-9+.-]*:/i.test(input) ? input : `https://${input.replace(/^\/+/, '')}`;
  if (url !== input) add('address', 'info', `No scheme given: checked as ${url}.`);
  let page: URL | null = null;
  try {
    page = new URL(url);
  } catch {
    // not an address
  }
  if (!page || (page.protocol !== 'https:' && page.protocol !== 'http:') || !page.hostname) {
    add('address', 'problem', 'This is not the address of a web page (http:// or https://): enter one as your browser shows it, e.g. https://www.example.com/new-inventory.');
    return { url, origin: null, findings, seen: [], counts: [] };
  }
  const origin = beaconOrigin(page.origin, undefined);
  const { security } = ctx;
  const serverHttp = new URL(ctx.publicOrigin).protocol === 'http:' && !ctx.loopbackOnly;

  // HTTPS: the intake judges the connection to this server, which the page makes to PUBLIC_ORIGIN.
  if (serverHttp && page.protocol === 'https:') {
    add('https', 'problem', `The banner server's address ${ctx.publicOrigin} is plain HTTP: browsers block its script on this HTTPS page (mixed content). Whoever runs the banner server must serve it over HTTPS.`);
  } else if (serverHttp && security.requireHttps) {
    add('https', 'problem', `Your settings require HTTPS but the banner server's address ${ctx.publicOrigin} is plain HTTP: every beacon is refused. Whoever runs the banner server must serve it over HTTPS.`, 'https');
  } else if (page.protocol === 'http:') {
    add('https', 'warning', `This page is plain HTTP. Beacons are judged by their own connection to the banner server, so they are counted, but serve your site over HTTPS (redirect http:// to https://) so shoppers' browsers do not flag it.`);
  } else add('https', 'ok', 'HTTPS: the page and the banner server both use it.');

  // Allowed domains, as the intake applies them (public-policy.ts hostAllowed).
  const host = page.hostname.toLowerCase();
  if (!security.enableCors || security.allowedDomains.length === 0) {
    add('domain', 'ok', 'Domain checks are off: pages on any domain are counted.');
  } else if (hostAllowed(host, security.allowedDomains)) {
    add('domain', 'ok', `${host} is on your allowed domains: its beacons are counted.`);
  } else {
    add('domain', 'problem', `${host} is not on your allowed domains (${security.allowedDomains.join(', ')}): the banners show but every beacon is refused. ${ctx.admin ? "Add it to the allowed domains in the dealer's Security settings." : 'Ask your administrator to add it under Security.'}`, 'domain');
    const www = host.startsWith('www.') ? host.slice(4) : `www.${host}`;
    if (hostAllowed(www, security.allowedDomains) && !host.startsWith('www.')) {
      add('www', 'problem', `Your allowed domains cover www.${host} but not the bare ${host}: list ${host} instead (it covers www.${host} too).`, 'domain');
    } else if (host.startsWith('www.') && !hostAllowed(www, security.allowedDomains)) {
      add('www', 'info', `Listing ${www} would cover both ${www} and ${host}.`);
    }
  }

  // Names ad blockers block: the addresses this page requests from this deployment.
  const blocked = deploymentBlocklistMatches(ctx.publicOrigin.replace(/\/+$/, ''), ctx.dealerId);
  if (blocked.length === 0) add('blocklist', 'ok', 'The script, banner and beacon addresses match no ad-blocker rule.');
  for (const m of blocked) add('blocklist', 'warning', `${m.url} matches the ad-blocker rule ${m.rule} (${m.lists}): shoppers with an ad blocker get no banners or beacons. ${m.why}`);

  if (security.respectDoNotTrack !== false) {
    add('opted-out', 'info', 'Visitors whose browser sends Do-Not-Track or Global Privacy Control see the banners but are not counted (your settings respect them).', 'opted-out');
  }
  const counts = health.counts.filter((c) => c.origin === origin).map(({ reason, beacons }) => ({ reason, beacons }));
  return { url, origin, findings, seen: health.seen.filter((s) => s.origin === origin), counts };
}
