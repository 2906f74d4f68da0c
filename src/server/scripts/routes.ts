/**
 * Script routes: the public per-dealer embed script and the signed-in script page data
 * (spec 01 §7, spec 02 §2 Script and Dealer script page, DECISIONS 6).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { getDealer } from '../dealers/service';
import { findDeliveryDealer } from '../delivery/service';
import { manufacturers } from '../db/schema';
import type { Db } from '../db/client';
import { dealerScript, embedConfig } from './service';
import { dealerRateLimit } from '../delivery/public-policy';
import { dealerStats } from '../tracking/service';
import { SCRIPT_SUMMARY_ENTRIES } from '../../domain/constants';
import type { Dealer } from '../../domain/schemas';

const SCRIPT_FILE = /^dc-banners-([a-z0-9-]+)\.js$/;

async function manufacturerRules(db: Db, manufacturerId: string): Promise<Record<string, string>> {
  const [row] = await db
    .select({ rules: manufacturers.defaultUpsellRules })
    .from(manufacturers)
    .where(eq(manufacturers.id, manufacturerId));
  return row?.rules ?? {};
}

/** Script URL, tag and shortcodes of a dealer. */
export function scriptInfo(origin: string, dealerId: string) {
  const scriptUrl = `${origin}/scripts/dc-banners-${dealerId}.js`;
  return {
    scriptUrl,
    scriptTag: `<script src="${scriptUrl}" async></script>`,
    shortcodes: ['header', 'primary', 'upsell'].map((t) => `[dc-banner type="${t}"]`),
  };
}

async function scriptFor(app: FastifyInstance, dealer: Dealer): Promise<string> {
  const rules = await manufacturerRules(app.db, dealer.manufacturer);
  return dealerScript(app.config.embedDistFile, embedConfig(dealer, rules, app.config.publicOrigin));
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
        const body = Buffer.from(await scriptFor(app, await getDealer(app.db, current.id)));
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
      const content = await scriptFor(app, dealer);
      await app.events.flush();
      const stats = await dealerStats(app.db, dealer.id, new Date(0), new Date());
      const mappings = Object.entries(dealer.configs.modelMap);
      const upsellRules = Object.entries(
        embedConfig(dealer, await manufacturerRules(app.db, dealer.manufacturer), app.config.publicOrigin).upsellMap,
      );
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
