/**
 * Contract of the campaign routes (domain/campaigns.ts): a dealer's named promotions with a
 * window, models, slots, mode and status, shared by the server (src/server/campaigns) and the
 * Campaigns screen (src/web/dealer/campaigns, types only).
 */
import { z } from 'zod';
import { slotTypeSchema } from '../schemas';
import { CAMPAIGN_MODES, CAMPAIGN_STATUSES } from '../campaigns';
import { windowFieldSchema } from './assets';

/** `:dealerId/campaigns/:campaignId`: a malformed campaign id is simply not found (404). */
export const campaignParams = z.object({ dealerId: z.string(), campaignId: z.uuid({ error: 'Campaign not found' }) });

const nameSchema = z.string().trim().min(1, 'Name the campaign').max(120);
const modelsSchema = z.array(z.string().trim().min(1).max(100)).max(200);
const slotsSchema = z.array(slotTypeSchema).max(3);

/**
 * Body of POST /campaigns: a new campaign, always a draft. `startsAt` (required) and `endsAt`
 * (null = open-ended) are date-times as the asset window takes them (local ones in the dealer's
 * time zone); `models` are standard model names and `slots` slot types, [] = all.
 */
export const campaignCreateSchema = z
  .object({
    name: nameSchema,
    mode: z.enum(CAMPAIGN_MODES),
    startsAt: windowFieldSchema.unwrap(),
    endsAt: windowFieldSchema.optional(),
    models: modelsSchema.default([]),
    slots: slotsSchema.default([]),
  })
  .strict();
export type CampaignCreate = z.input<typeof campaignCreateSchema>;

/** Body of PATCH /campaigns/:campaignId: any field of the create body; an absent one is kept. An ended campaign is not edited (409). */
export const campaignPatchSchema = z
  .object({
    name: nameSchema.optional(),
    mode: z.enum(CAMPAIGN_MODES).optional(),
    startsAt: windowFieldSchema.unwrap().optional(),
    endsAt: windowFieldSchema.optional(),
    models: modelsSchema.optional(),
    slots: slotsSchema.optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'Nothing to change');
export type CampaignPatch = z.infer<typeof campaignPatchSchema>;

/** What POST /campaigns/:campaignId/status does: publish a draft, pause or resume a published one, end one now. */
export const CAMPAIGN_ACTIONS = ['publish', 'pause', 'resume', 'end'] as const;
export const campaignActionSchema = z.object({ action: z.enum(CAMPAIGN_ACTIONS) }).strict();
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/**
 * Body of POST /campaigns/:campaignId/assets: existing assets of the dealer to attach to the
 * campaign (they become its creatives, exactly as if uploaded into it: they follow its window,
 * status, slots and models) and to detach from it (they go back to their own schedule). Asset ids;
 * at least one in all, none in both lists. Written in one transaction.
 */
export const campaignAssetsSchema = z
  .object({
    attach: z.array(z.uuid({ error: 'Asset not found' })).max(200).default([]),
    detach: z.array(z.uuid({ error: 'Asset not found' })).max(200).default([]),
  })
  .strict()
  .refine((v) => v.attach.length + v.detach.length > 0, 'Nothing to change')
  .refine((v) => !v.attach.some((id) => v.detach.includes(id)), { message: 'An asset cannot be attached and detached at once', path: ['detach'] });
export type CampaignAssets = z.input<typeof campaignAssetsSchema>;

/** A campaign as the API answers it. */
export const campaignSchema = z.object({
  id: z.string(),
  dealerId: z.string(),
  name: z.string(),
  mode: z.enum(CAMPAIGN_MODES),
  status: z.enum(CAMPAIGN_STATUSES),
  /** Where it stands at the server's time of the answer (domain/campaigns.ts campaignState): its badge. */
  state: z.enum(['draft', 'scheduled', 'live', 'paused', 'ended']),
  /** ISO 8601 UTC instants: its creatives show from startsAt (inclusive) until endsAt (exclusive, null = open). */
  startsAt: z.string(),
  endsAt: z.string().nullable(),
  models: z.array(z.string()),
  slots: z.array(slotTypeSchema),
  /** How many creatives (assets) it has: uploaded into it or chosen from the dealer's assets. */
  assetCount: z.number().int(),
  /**
   * How many of them were uploaded into it (domain/campaigns.ts AssetOrigin 'campaign'): deleting
   * the campaign deletes these; the others go back to the dealer's assets.
   */
  uploadedCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;

export const campaignListSchema = z.object({ campaigns: z.array(campaignSchema), timeZone: z.string() });
export type CampaignList = z.infer<typeof campaignListSchema>;
export const campaignAnswerSchema = z.object({ campaign: campaignSchema });
