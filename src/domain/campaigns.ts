/**
 * Promotion campaigns: a dealer's named promotion with a window
 * [startsAt, endsAt) (entered in the dealer's time zone, stored in UTC), the models and slots it
 * covers (empty = all), a mode and a status. Its creatives are uploaded into it and follow it:
 * they show only while the campaign is published (not a draft, not paused, not ended) and inside
 * its window. Mode 'takeover': during its window its creatives replace the regular ones of its
 * slots and models; 'rotate': they join the regular rotation (A/B, asset-choice.ts chooseRotation).
 * Browser-safe; nothing here reads the clock (callers pass `now`, ms).
 */
import type { SlotType } from './schemas';
import { SLOTS } from './slots';
import { modelKey } from './model-keys';
import { scheduleStatus, type Instant } from './schedule';

export const CAMPAIGN_MODES = ['takeover', 'rotate'] as const;
export type CampaignMode = (typeof CAMPAIGN_MODES)[number];
/** What a dealer set: 'draft' (its creatives never show), 'published', 'paused', 'ended' (ended now, for good). */
export const CAMPAIGN_STATUSES = ['draft', 'published', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/**
 * Where an asset was uploaded: 'campaign' = into a campaign (it is the campaign's own and goes when
 * the campaign is deleted); 'library' = to the dealer's assets (a campaign it is chosen into only
 * borrows it: deleting that campaign returns it to the library with its own schedule).
 */
export const ASSET_ORIGINS = ['library', 'campaign'] as const;
export type AssetOrigin = (typeof ASSET_ORIGINS)[number];
/**
 * Where a campaign stands at a moment, as its badge reads: 'draft', 'paused', 'ended' as set, else
 * by its window: 'scheduled' (published, before its start), 'live', or 'ended' (after its end).
 */
export type CampaignState = 'draft' | 'scheduled' | 'live' | 'paused' | 'ended';

/** The fields of a campaign that decide whether, where and how its creatives show. */
export interface CampaignRule {
  mode: CampaignMode;
  status: CampaignStatus;
  startsAt: Instant;
  endsAt: Instant;
  /** Standard model names; [] = every model. */
  models: readonly string[];
  /** Slot types; [] = every slot. */
  slots: readonly SlotType[];
}

/** The state of a campaign at `now` (ms since the epoch): see CampaignState. */
export function campaignState(c: Pick<CampaignRule, 'status' | 'startsAt' | 'endsAt'>, now: number): CampaignState {
  if (c.status !== 'published') return c.status;
  const s = scheduleStatus(c, now);
  return s === 'expired' ? 'ended' : s;
}

/** True when a campaign's creatives may show at `now`: published and inside its window. */
export const campaignLive = (c: Pick<CampaignRule, 'status' | 'startsAt' | 'endsAt'>, now: number): boolean => campaignState(c, now) === 'live';

/** True when a campaign covers slot `slot` of model `model` (compared by modelKey); empty lists cover all. */
export function campaignCovers(c: Pick<CampaignRule, 'models' | 'slots'>, slot: SlotType, model: string): boolean {
  const key = modelKey(model);
  return (c.slots.length === 0 || c.slots.includes(slot)) && (c.models.length === 0 || c.models.some((m) => modelKey(m) === key));
}

/**
 * Why an asset cannot be one of a campaign's creatives, or null when it can (an existing asset
 * attached to a campaign, POST /campaigns/:campaignId/assets, and the creative picker's list):
 * - 'slots': the asset's type (its size family: 'header' for SRP header sizes, 'primary' for the
 *   inline ones, slots.ts) fits none of the campaign's slot types (an inline creative fits
 *   'primary' and 'upsell'); an empty slot list takes every type;
 * - 'models': its model (compared by modelKey) is none of the campaign's models; empty: all.
 */
export function campaignMisfit(c: Pick<CampaignRule, 'models' | 'slots'>, asset: { type: SlotType; model: string }): 'slots' | 'models' | null {
  const family = SLOTS[asset.type].family;
  if (c.slots.length > 0 && !c.slots.some((s) => SLOTS[s].family === family)) return 'slots';
  const key = modelKey(asset.model);
  if (c.models.length > 0 && !c.models.some((m) => modelKey(m) === key)) return 'models';
  return null;
}
