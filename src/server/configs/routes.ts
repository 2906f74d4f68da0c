/**
 * Configuration, upsell rules, banner preview and dashboard trend routes of the dealer area
 * (spec 02 §2 Configuration manager, Upsell rules, Banner Preview, Dashboard; DECISIONS 2, 14, 18).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { variantSchema } from '../../domain/schemas';
import { parseInput } from '../validation';
import { getDealer } from '../dealers/service';
import { configsUpdateSchema, getConfigs, manufacturerDefaults, previewSlots, saveConfigs, statsWithTrend, upsellRules } from './service';

const previewQuery = z.object({
  model: z.string().trim().min(1, 'Choose a model').max(100),
  trim: z.string().trim().max(100).optional(),
  variant: variantSchema.default('desktop'),
});
const trendQuery = z.object({ days: z.coerce.number().int().min(1).max(365).default(7) });

type P = { Params: { dealerId: string } };

export async function configRoutes(app: FastifyInstance) {
  app.get<P>('/api/dealers/:dealerId/configs', { config: { access: 'dealer-read' } }, async (request) =>
    getConfigs(app.db, request.params.dealerId),
  );

  app.put<P>('/api/dealers/:dealerId/configs', { config: { access: 'dealer-write' } }, async (request) => {
    const update = parseInput(configsUpdateSchema, request.body);
    return saveConfigs(app.db, request.params.dealerId, update);
  });

  app.get<P>('/api/dealers/:dealerId/configs/defaults', { config: { access: 'dealer-read' } }, async (request) =>
    manufacturerDefaults(app.db, request.params.dealerId),
  );

  app.get<P>('/api/dealers/:dealerId/upsell-rules', { config: { access: 'dealer-read' } }, async (request) =>
    upsellRules(app.db, request.params.dealerId),
  );

  app.get<P>('/api/dealers/:dealerId/preview', { config: { access: 'dealer-read' } }, async (request) => {
    const q = parseInput(previewQuery, request.query);
    const dealer = await getDealer(app.db, request.params.dealerId);
    const slots = await previewSlots(app.db, request.params.dealerId, { model: q.model, trim: q.trim || undefined, variant: q.variant }, app.cdnProbes);
    // background: the dealer's branding colour, shown around a creative of another shape (as the script does).
    return { model: q.model, trim: q.trim ?? '', variant: q.variant, slots, background: dealer.branding.primaryColor };
  });

  app.get<P>('/api/dealers/:dealerId/stats/trend', { config: { access: 'dealer-read' } }, async (request) => {
    const { days } = parseInput(trendQuery, request.query);
    await getDealer(app.db, request.params.dealerId);
    await app.events.flush();
    return statsWithTrend(app.db, request.params.dealerId, days);
  });
}
