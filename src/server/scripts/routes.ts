/**
 * Script routes: the public per-dealer embed script and the signed-in script page data
 * (spec 01 §7, spec 02 §2 Script and Dealer script page, DECISIONS 6).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { getDealer } from '../dealers/service';
import { findDeliveryDealer, type DealerDelivery } from '../delivery/service';
import { NotFound } from '../errors';
import { dealerScript, embedConfig } from './service';
import { dealerRateLimit } from '../delivery/public-policy';
import { dealerStats } from '../tracking/service';
import { SCRIPT_SUMMARY_ENTRIES, TEXT } from '../../domain/constants';

const SCRIPT_FILE = /^dc-banners-([a-z0-9-]+)\.js$/;

/** Script URL, tag and shortcodes of a dealer. */
export function scriptInfo(origin: string, dealerId: string) {
  const scriptUrl = `${origin}/scripts/dc-banners-${dealerId}.js`;
  return {
    scriptUrl,
    scriptTag: `<script src="${scriptUrl}" async></script>`,
    shortcodes: ['header', 'primary', 'upsell'].map((t) => `[dc-banner type="${t}"]`),
  };
}

function scriptFor(app: FastifyInstance, dealer: DealerDelivery): Promise<string> {
  return dealerScript(app.config.embedDistFile, embedConfig(dealer, app.config.publicOrigin));
}

/**
 * The upsell rules in force, as the script page summary lists them: each model whose upsell slot
 * shows another model, once (from the same page plans the script and the image endpoint use).
 */
function upsellPairs(dealer: DealerDelivery): Array<[string, string]> {
  const pairs = new Map<string, [string, string]>();
  for (const plan of dealer.plans.values()) {
    if (plan.upsell.key !== plan.model.key) pairs.set(plan.model.key, [plan.model.displayName, plan.upsell.displayName]);
  }
  return [...pairs.values()];
}

export async function scriptRoutes(app: FastifyInstance) {
  /** Built script bytes and their strong ETag per dealer version. */
  const scriptCache = new Map<string, { body: Buffer; etag: string }>();

  // /scripts/:file serves dc-banners-{id}.js; any other /scripts/* path is the SPA's script page.
  app.get<{ Params: { file: string } }>(
    '/scripts/:file',
    // JavaScript for other sites: helmet's page headers do not apply (nosniff is set below).
    { helmet: false, config: { access: 'public', rateLimit: dealerRateLimit((r) => SCRIPT_FILE.exec((r.params as { file: string }).file)?.[1] ?? '') } },
    async (request, reply) => {
      const match = SCRIPT_FILE.exec(request.params.file);
      if (!match) return reply.callNotFound();
      const current = await findDeliveryDealer(app.db, match[1]!);
      if (!current) {
        return reply.status(404).type('application/javascript').send('/* dc-banners: unknown dealer */');
      }
      // The script depends only on the dealer's settings, so it is built once per dealer version.
      const key = `${current.id}|${current.version}`;
      let built = scriptCache.get(key);
      if (built === undefined) {
        const body = Buffer.from(await scriptFor(app, current));
        built = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
        if (scriptCache.size > 1000) scriptCache.clear();
        scriptCache.set(key, built);
      }
      reply
        .type('application/javascript; charset=utf-8')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Access-Control-Allow-Origin', '*')
        .header('Cache-Control', 'public, max-age=300')
        .header('ETag', built.etag);
      if (request.headers['if-none-match'] === built.etag) return reply.status(304).send();
      return reply.send(built.body);
    },
  );

  app.get<{ Params: { dealerId: string } }>(
    '/api/dealers/:dealerId/script',
    { config: { access: 'dealer-read' } },
    async (request) => {
      const dealer = await getDealer(app.db, request.params.dealerId);
      const delivery = await findDeliveryDealer(app.db, dealer.id);
      if (!delivery) throw new NotFound(TEXT.dealerNotFound);
      const content = await scriptFor(app, delivery);
      await app.events.flush();
      const stats = await dealerStats(app.db, dealer.id, new Date(0), new Date());
      const mappings = Object.entries(dealer.configs.modelMap);
      const upsellRules = upsellPairs(delivery);
      return {
        ...scriptInfo(app.config.publicOrigin, dealer.id),
        content,
        dealer: {
          id: dealer.id,
          name: dealer.name,
          manufacturer: dealer.manufacturerName,
          provider: dealer.provider,
          status: dealer.status,
        },
        summary: {
          mappings: mappings.slice(0, SCRIPT_SUMMARY_ENTRIES),
          mappingsTotal: mappings.length,
          upsellRules: upsellRules.slice(0, SCRIPT_SUMMARY_ENTRIES),
          upsellRulesTotal: upsellRules.length,
          impressions: stats.impressions,
          clicks: stats.clicks,
          ctr: stats.ctr,
        },
      };
    },
  );
}
