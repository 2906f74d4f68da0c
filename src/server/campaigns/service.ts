/**
 * Campaigns of a dealer (domain/campaigns.ts): list, create (always a draft), edit, publish,
 * pause, resume, end now, delete. Every write runs in one transaction and raises the dealer's
 * version (migration 0018's triggers), so delivery, Preview and the script see it at once; a
 * window start or end needs no write (the campaign windows are read-model boundaries,
 * dealer-sites/read-model.ts). Functions that say where a campaign stands take the request time
 * `now` (app.now), never the clock.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { assets, campaigns } from '../db/schema';
import { campaignMisfit, campaignState, type CampaignStatus } from '../../domain/campaigns';
import type { z } from 'zod';
import type { Campaign, CampaignAction, campaignAssetsSchema, campaignCreateSchema, CampaignPatch } from '../../domain/contracts/campaigns';
import type { SlotType } from '../../domain/schemas';
import { Conflict, Invalid, NotFound } from '../errors';
import { resolveWindow, windowTimeZone } from '../assets/service';

type CampaignRow = typeof campaigns.$inferSelect;
const NOT_FOUND = 'Campaign not found';

/** How many creatives a campaign has, and how many of them were uploaded into it. */
interface Counts {
  assets: number;
  uploaded: number;
}
const NO_ASSETS: Counts = { assets: 0, uploaded: 0 };
/** Per campaign: its creatives, and those uploaded into it (origin 'campaign'). */
const countColumns = { n: count(), uploaded: sql<number>`count(*) filter (where ${assets.origin} = 'campaign')`.mapWith(Number) };

/** API shape of a campaign row with its creatives' counts; `state` at `now`. */
function toCampaign(row: CampaignRow, counts: Counts, now: Date): Campaign {
  return {
    id: row.id,
    dealerId: row.dealerId,
    name: row.name,
    mode: row.mode,
    status: row.status,
    state: campaignState(row, now.getTime()),
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt?.toISOString() ?? null,
    models: row.models,
    slots: row.slots,
    assetCount: counts.assets,
    uploadedCount: counts.uploaded,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The creatives of each campaign of a dealer, and how many were uploaded into it. */
async function assetCounts(db: Db | Tx, dealerId: string): Promise<Map<string, Counts>> {
  const rows = await db
    .select({ id: assets.campaignId, ...countColumns })
    .from(assets)
    .where(eq(assets.dealerId, dealerId))
    .groupBy(assets.campaignId);
  return new Map(rows.filter((r) => r.id).map((r) => [r.id!, { assets: r.n, uploaded: r.uploaded }]));
}

/** A dealer's campaigns, the latest start first, with where each stands at `now`, and the time zone windows are entered in. @throws NotFound for an unknown dealer. */
export async function listCampaigns(db: Db, dealerId: string, now: Date): Promise<{ campaigns: Campaign[]; timeZone: string }> {
  const timeZone = await windowTimeZone(db, dealerId);
  const rows = await db.select().from(campaigns).where(eq(campaigns.dealerId, dealerId)).orderBy(asc(campaigns.startsAt), asc(campaigns.createdAt));
  const counts = await assetCounts(db, dealerId);
  return { campaigns: rows.reverse().map((r) => toCampaign(r, counts.get(r.id) ?? NO_ASSETS, now)), timeZone };
}

/** One campaign of a dealer, locked for the transaction. @throws NotFound. */
async function lockedCampaign(tx: Tx, dealerId: string, campaignId: string): Promise<CampaignRow> {
  const [row] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.dealerId, dealerId), eq(campaigns.id, campaignId)))
    .for('update');
  if (!row) throw new NotFound(NOT_FOUND);
  return row;
}

/** One campaign's answer shape after a write. */
async function answer(tx: Tx, row: CampaignRow, now: Date): Promise<Campaign> {
  const [n] = await tx.select(countColumns).from(assets).where(eq(assets.campaignId, row.id));
  return toCampaign(row, { assets: n?.n ?? 0, uploaded: n?.uploaded ?? 0 }, now);
}

/** The window of a create or edit: start required, end null or after it (400 naming the field otherwise). */
function campaignWindow(input: { startsAt?: string; endsAt?: string | null }, current: { startsAt: Date | null; endsAt: Date | null }, timeZone: string): { startsAt: Date; endsAt: Date | null } {
  const w = resolveWindow(input, current, timeZone);
  if (!w.startsAt) throw Invalid.field('startsAt', 'is required', 'invalid_type');
  return { startsAt: w.startsAt, endsAt: w.endsAt };
}

/**
 * Creates a draft campaign of a dealer (its creatives show only once it is published).
 * @throws NotFound for an unknown dealer; Invalid naming a window field that is not a date-time or an end not after the start.
 */
export async function createCampaign(db: Db, dealerId: string, input: z.output<typeof campaignCreateSchema>, now: Date): Promise<Campaign> {
  return db.transaction(async (tx) => {
    const timeZone = await windowTimeZone(tx, dealerId);
    const window = campaignWindow(input, { startsAt: null, endsAt: null }, timeZone);
    const [row] = await tx
      .insert(campaigns)
      .values({ id: randomUUID(), dealerId, name: input.name, mode: input.mode, status: 'draft', ...window, models: input.models, slots: input.slots, createdAt: now, updatedAt: now })
      .returning();
    return toCampaign(row!, NO_ASSETS, now);
  });
}

/**
 * Edits a campaign: any of name, mode, window, models and slots. @throws NotFound; Conflict for
 * an ended campaign; Invalid naming a window field.
 */
export async function updateCampaign(db: Db, dealerId: string, campaignId: string, patch: CampaignPatch, now: Date): Promise<Campaign> {
  return db.transaction(async (tx) => {
    const row = await lockedCampaign(tx, dealerId, campaignId);
    if (row.status === 'ended') throw new Conflict('This campaign has ended: it can no longer be changed');
    const window = campaignWindow(patch, row, await windowTimeZone(tx, dealerId));
    const [updated] = await tx
      .update(campaigns)
      .set({
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.mode === undefined ? {} : { mode: patch.mode }),
        ...(patch.models === undefined ? {} : { models: patch.models }),
        ...(patch.slots === undefined ? {} : { slots: patch.slots }),
        ...window,
        updatedAt: now,
      })
      .where(eq(campaigns.id, row.id))
      .returning();
    return answer(tx, updated!, now);
  });
}

/** What a misfit asset is told, by the campaign field it does not fit (domain/campaigns.ts campaignMisfit). */
const MISFIT: Record<'slots' | 'models', string> = {
  slots: "does not fit the campaign's slots (its size is for another slot type)",
  models: "is for a model the campaign does not cover",
};

/**
 * Attaches existing assets of the dealer to a campaign and detaches others from it, in one
 * transaction: an attached asset becomes one of the campaign's creatives exactly as an upload into
 * the campaign does (assets.campaign_id; delivery, Preview and coverage then serve it while the
 * campaign is live, for its slots and models), a detached one goes back to the dealer's assets
 * with its own schedule (an upload into the campaign then becomes a library asset too). The
 * dealer's version rises with the asset rows (migration 0007's triggers). Attaching a creative the
 * campaign already has changes nothing.
 * @throws NotFound for an unknown campaign, or an asset id that is not one of this dealer's assets
 *   ('Asset not found': another dealer's asset is not told apart from a missing one); Conflict for
 *   an ended campaign, or an asset that belongs to another campaign (detach it there first);
 *   Invalid naming `attach.N` for an asset that does not fit the campaign's slots or models, and
 *   `detach.N` for an asset that is not one of this campaign's creatives.
 */
export async function setCampaignAssets(db: Db, dealerId: string, campaignId: string, change: z.output<typeof campaignAssetsSchema>, now: Date): Promise<Campaign> {
  return db.transaction(async (tx) => {
    const row = await lockedCampaign(tx, dealerId, campaignId);
    if (row.status === 'ended') throw new Conflict('This campaign has ended: its creatives can no longer be changed');
    const ids = [...new Set([...change.attach, ...change.detach])];
    const found = await tx
      .select({ id: assets.id, type: assets.type, model: assets.model, name: assets.name, campaignId: assets.campaignId, campaignName: campaigns.name })
      .from(assets)
      .leftJoin(campaigns, eq(campaigns.id, assets.campaignId))
      .where(and(eq(assets.dealerId, dealerId), inArray(assets.id, ids)))
      .for('update', { of: assets });
    const byId = new Map(found.map((a) => [a.id, a]));
    const attach: string[] = [];
    for (const [i, id] of change.attach.entries()) {
      const a = byId.get(id);
      if (!a) throw new NotFound('Asset not found');
      if (a.campaignId === row.id) continue;
      if (a.campaignId) throw new Conflict(`${a.name} belongs to the campaign "${a.campaignName ?? ''}": detach it there first`);
      const misfit = campaignMisfit(row, { type: a.type as SlotType, model: a.model });
      if (misfit) throw Invalid.field(`attach.${i}`, `${a.name} ${MISFIT[misfit]}`, 'campaign_misfit');
      attach.push(id);
    }
    for (const [i, id] of change.detach.entries()) {
      const a = byId.get(id);
      if (!a) throw new NotFound('Asset not found');
      if (a.campaignId !== row.id) throw Invalid.field(`detach.${i}`, `${a.name} is not one of this campaign's creatives`, 'custom');
    }
    if (attach.length > 0) await tx.update(assets).set({ campaignId: row.id }).where(inArray(assets.id, attach));
    if (change.detach.length > 0) await tx.update(assets).set({ campaignId: null, origin: 'library' }).where(inArray(assets.id, change.detach));
    return answer(tx, row, now);
  });
}

/** The status each action moves from, and to. */
const TRANSITIONS: Record<CampaignAction, { from: readonly CampaignStatus[]; to: CampaignStatus }> = {
  publish: { from: ['draft'], to: 'published' },
  pause: { from: ['published'], to: 'paused' },
  resume: { from: ['paused'], to: 'published' },
  end: { from: ['draft', 'published', 'paused'], to: 'ended' },
};

/**
 * Publishes, pauses, resumes or ends a campaign. Ending it now also moves its end to `now` when
 * that is inside its window (the list then says when it stopped). @throws NotFound; Conflict when
 * the action does not apply to its status ('Cannot pause a draft campaign').
 */
export async function setCampaignStatus(db: Db, dealerId: string, campaignId: string, action: CampaignAction, now: Date): Promise<Campaign> {
  return db.transaction(async (tx) => {
    const row = await lockedCampaign(tx, dealerId, campaignId);
    const t = TRANSITIONS[action];
    if (!t.from.includes(row.status)) throw new Conflict(`Cannot ${action} a${row.status === 'ended' ? 'n' : ''} ${row.status} campaign`);
    const endNow = action === 'end' && now.getTime() > row.startsAt.getTime() && (!row.endsAt || now.getTime() < row.endsAt.getTime());
    const [updated] = await tx
      .update(campaigns)
      .set({ status: t.to, updatedAt: now, ...(endNow ? { endsAt: now } : {}) })
      .where(eq(campaigns.id, row.id))
      .returning();
    return answer(tx, updated!, now);
  });
}

/**
 * Deletes a campaign and the creatives uploaded into it (origin 'campaign': the foreign key's ON
 * DELETE CASCADE), in one transaction; creatives chosen from the dealer's assets (origin
 * 'library') are detached first and stay, back on their own schedule. @throws NotFound.
 */
export async function deleteCampaign(db: Db, dealerId: string, campaignId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await lockedCampaign(tx, dealerId, campaignId);
    await tx.update(assets).set({ campaignId: null }).where(and(eq(assets.campaignId, campaignId), eq(assets.origin, 'library')));
    await tx.delete(campaigns).where(eq(campaigns.id, campaignId));
  });
}

/**
 * The campaign an upload goes into (the upload's `campaignId` field), checked: it must be one of
 * the dealer's and not ended. @throws Invalid naming `campaignId` otherwise.
 */
export async function uploadCampaign(db: Db | Tx, dealerId: string, campaignId: string): Promise<string> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const [row] = uuid.test(campaignId)
    ? await db.select({ id: campaigns.id, status: campaigns.status }).from(campaigns).where(and(eq(campaigns.dealerId, dealerId), eq(campaigns.id, campaignId)))
    : [];
  if (!row) throw Invalid.field('campaignId', 'is not one of this dealer\'s campaigns', 'unknown_reference');
  if (row.status === 'ended') throw Invalid.field('campaignId', 'names a campaign that has ended', 'custom');
  return row.id;
}
