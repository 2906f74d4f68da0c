/**
 * Campaign routes of the dealer area (domain/campaigns.ts): dealer staff read them
 * ('dealer-read'), dealer managers and admins change them ('dealer-write'); the access check
 * (auth/access.ts) enforces the role and the dealer's ownership. Times come from app.now.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dealerParams } from '../../domain/contracts/common';
import {
  campaignActionSchema,
  campaignAnswerSchema,
  campaignAssetsSchema,
  campaignCreateSchema,
  campaignListSchema,
  campaignParams,
  campaignPatchSchema,
} from '../../domain/contracts/campaigns';
import { createCampaign, deleteCampaign, listCampaigns, setCampaignAssets, setCampaignStatus, updateCampaign } from './service';

const tags = ['campaigns'];

export async function campaignRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/dealers/:dealerId/campaigns',
    { config: { access: 'dealer-read' }, schema: { tags, summary: 'Campaigns, the latest start first, with their state now', params: dealerParams, response: { 200: campaignListSchema } } },
    async (request) => listCampaigns(app.db, request.params.dealerId, app.now()),
  );

  app.post(
    '/api/dealers/:dealerId/campaigns',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Create a campaign (a draft)', params: dealerParams, body: campaignCreateSchema, response: { 200: campaignAnswerSchema } } },
    async (request) => ({ campaign: await createCampaign(app.db, request.params.dealerId, request.body, app.now()) }),
  );

  app.patch(
    '/api/dealers/:dealerId/campaigns/:campaignId',
    { config: { access: 'dealer-write' }, schema: { tags, summary: "Edit a campaign's name, mode, window, models or slots", params: campaignParams, body: campaignPatchSchema, response: { 200: campaignAnswerSchema } } },
    async (request) => ({ campaign: await updateCampaign(app.db, request.params.dealerId, request.params.campaignId, request.body, app.now()) }),
  );

  app.post(
    '/api/dealers/:dealerId/campaigns/:campaignId/status',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Publish, pause, resume or end a campaign now', params: campaignParams, body: campaignActionSchema, response: { 200: campaignAnswerSchema } } },
    async (request) => ({ campaign: await setCampaignStatus(app.db, request.params.dealerId, request.params.campaignId, request.body.action, app.now()) }),
  );

  app.post(
    '/api/dealers/:dealerId/campaigns/:campaignId/assets',
    {
      config: { access: 'dealer-write' },
      schema: {
        tags,
        summary: "Attach the dealer's existing assets to a campaign as its creatives, or detach them (one transaction; each must fit the campaign's slots and models)",
        params: campaignParams,
        body: campaignAssetsSchema,
        response: { 200: campaignAnswerSchema },
      },
    },
    async (request) => ({ campaign: await setCampaignAssets(app.db, request.params.dealerId, request.params.campaignId, request.body, app.now()) }),
  );

  app.delete(
    '/api/dealers/:dealerId/campaigns/:campaignId',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Delete a campaign and the creatives uploaded into it (creatives chosen from the dealer\'s assets go back to them)', params: campaignParams, response: { 204: z.void().describe('No content') } } },
    async (request, reply) => {
      await deleteCampaign(app.db, request.params.dealerId, request.params.campaignId);
      return reply.status(204).send();
    },
  );
}
