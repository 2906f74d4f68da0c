/**
 * Configuration, upsell rules, banner preview and dashboard trend routes of the dealer area
 * (spec 02 §2 Configuration manager, Upsell rules, Banner Preview, Dashboard; DECISIONS 2, 14, 18).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dealerParams } from '../../domain/contracts/common';
import {
  configsUpdateSchema,
  configsViewSchema,
  coverageAnswerSchema,
  coverageQuery,
  manufacturerDefaultsSchema,
  previewAnswerSchema,
  previewQuery,
  raisedPrioritySchema,
  statsWithTrendSchema,
  trendQuery,
  upsellPriorityParams,
  upsellRulesViewSchema,
} from '../../domain/contracts/configs';
import { getDealer } from '../dealers/service';
import { coverage, getConfigs, manufacturerDefaults, previewMoment, previewSlots, raiseUpsellPriority, saveConfigs, statsWithTrend, upsellRules } from './service';

const tags = ['configs'];
const read = { access: 'dealer-read' as const };

export async function configRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/dealers/:dealerId/configs', { config: read, schema: { tags, summary: 'The editable configs and banner sizes', params: dealerParams, response: { 200: configsViewSchema } } }, async (request) =>
    getConfigs(app.db, request.params.dealerId),
  );

  app.put(
    '/api/dealers/:dealerId/configs',
    { config: { access: 'dealer-write' }, schema: { tags, summary: 'Save config fields, all or nothing', params: dealerParams, body: configsUpdateSchema, response: { 200: configsViewSchema } } },
    async (request) => saveConfigs(app.db, request.params.dealerId, request.body),
  );

  app.post(
    '/api/dealers/:dealerId/upsell-priorities/:model/raise',
    {
      config: { access: 'dealer-write' },
      schema: {
        tags,
        summary: "Raise a model's upsell priority one band (1-3 -> 5, 4-7 -> 8, 8-9 -> +1); 409 at 10",
        params: upsellPriorityParams,
        response: { 200: raisedPrioritySchema },
      },
    },
    async (request) => raiseUpsellPriority(app.db, request.params.dealerId, request.params.model),
  );

  app.get(
    '/api/dealers/:dealerId/configs/defaults',
    { config: read, schema: { tags, summary: "The manufacturer's defaults (for Reset; nothing stored)", params: dealerParams, response: { 200: manufacturerDefaultsSchema } } },
    async (request) => manufacturerDefaults(app.db, request.params.dealerId),
  );

  app.get(
    '/api/dealers/:dealerId/upsell-rules',
    { config: read, schema: { tags, summary: 'The upsell rules of each strategy and those in force', params: dealerParams, response: { 200: upsellRulesViewSchema } } },
    async (request) => upsellRules(app.db, request.params.dealerId),
  );

  app.get(
    '/api/dealers/:dealerId/preview',
    { config: read, schema: { tags, summary: 'Banner preview of a model, now or as of a date and time', params: dealerParams, querystring: previewQuery, response: { 200: previewAnswerSchema } } },
    async (request) => {
      const q = request.query;
      const dealer = await getDealer(app.db, request.params.dealerId);
      const asOf = await previewMoment(app, request.params.dealerId, q.asOf);
      const slots = await previewSlots(asOf.ctx, request.params.dealerId, { model: q.model, trim: q.trim || undefined, variant: q.variant, asOf: asOf.given }, app.cdnProbes);
      // background: the dealer's branding colour, shown around a creative of another shape (as the script does).
      return { model: q.model, trim: q.trim ?? '', variant: q.variant, slots, background: dealer.branding.primaryColor, asOf: asOf.at.toISOString() };
    },
  );

  app.get(
    '/api/dealers/:dealerId/coverage',
    {
      config: read,
      schema: { tags, summary: 'What every standard model shows in each slot on desktop and mobile (coverage matrix), now or as of a date and time', params: dealerParams, querystring: coverageQuery, response: { 200: coverageAnswerSchema } },
    },
    async (request) => {
      const dealer = await getDealer(app.db, request.params.dealerId);
      const asOf = await previewMoment(app, request.params.dealerId, request.query.asOf);
      return { models: await coverage(asOf.ctx, request.params.dealerId, app.cdnProbes, asOf.given), background: dealer.branding.primaryColor, asOf: asOf.at.toISOString() };
    },
  );

  app.get(
    '/api/dealers/:dealerId/stats/trend',
    { config: read, schema: { tags, summary: 'Totals of the last days with the change against the days before', params: dealerParams, querystring: trendQuery, response: { 200: statsWithTrendSchema } } },
    async (request) => {
      const { days } = request.query;
      await getDealer(app.db, request.params.dealerId);
      await app.events.flush();
      return statsWithTrend(app.db, request.params.dealerId, days, app.now());
    },
  );
}
