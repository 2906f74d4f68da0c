/**
 * Script routes: the public per-dealer embed script and the signed-in script page data
 * (spec 01 §7, spec 02 §2 Script and Dealer script page, DECISIONS 6). The script is built and
 * compressed (brotli, gzip) once per dealer version, sent in the coding the client accepts and
 * revalidated by weak comparison; it is cacheable and not limited per client IP.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dealerParams } from '../../domain/contracts/common';
import { scriptFileParams, scriptPageSchema } from '../../domain/contracts/public';
import { getDealer } from '../dealers/service';
import type { DealerDelivery } from '../dealer-sites';
import { NotFound } from '../errors';
import { dealerScript, embedBundleFile, embedConfig, firstPartyInstall, snippetBundleFile, snippetConfig, tagManagerInstall } from './service';
import { customCssStatement } from './custom-css';
import { compressVariants, sendEntity } from '../delivery/encoding';
import { bareSlots } from '../delivery/service';
import { dealerStats } from '../reporting/service';
import { SCRIPT_SUMMARY_ENTRIES, TEXT } from '../../domain/constants';
import { SLOT_TYPES } from '../../domain/slots';
import { publicAddresses } from '../../domain/blocklist-names';

const SCRIPT_FILE = /^dc-banners-([a-z0-9-]+)\.js$/;

/**
 * Script URL, the tag to paste in the page's <head> (the inline snippet, then the async script),
 * the snippet's CSP hash (for a `script-src` that allows no inline script) and the
 * shortcodes of a dealer.
 */
export function scriptInfo(origin: string, dealerId: string, snippet: string) {
  const scriptUrl = publicAddresses(origin, dealerId).script;
  return {
    scriptUrl,
    scriptTag: `<script>${snippet}</script>\n<script src="${scriptUrl}" async></script>`,
    snippetHash: `'sha256-${createHash('sha256').update(snippet).digest('base64')}'`,
    shortcodes: SLOT_TYPES.map((t) => `[dc-banner type="${t}"]`),
  };
}

/** The dealer's inline snippet (snippet.ts) with its configuration. */
async function snippetFor(app: FastifyInstance, dealer: DealerDelivery): Promise<string> {
  const config = snippetConfig(dealer, app.config.publicOrigin, await bareSlots(app, dealer, app.cdnProbes));
  return dealerScript(snippetBundleFile(app.config.embedDistFile, dealer.provider), config, app.caches.bundles);
}

/**
 * The dealer's script: its custom CSS statement (only when it has custom CSS, custom-css.ts), then
 * the provider's bundle with its configuration; `bare`: its slots without a creative (bareSlots).
 */
async function scriptFor(app: FastifyInstance, dealer: DealerDelivery, bare?: Record<string, string>): Promise<string> {
  const config = embedConfig(dealer, app.config.publicOrigin, bare ?? (await bareSlots(app, dealer, app.cdnProbes)));
  const script = await dealerScript(embedBundleFile(app.config.embedDistFile, dealer.provider), config, app.caches.bundles);
  return customCssStatement(dealer.branding.customCss) + script;
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

export async function scriptRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  /** Built script bytes, their strong ETag and compressed copies per dealer version (LRU by size, delivery/caches.ts). */
  const scriptCache = app.caches.scripts;
  /** Hit and miss counters of the built-script cache (dcb_cache_lookups_total). */
  const scriptLookups = app.metrics.lookups.script;

  // /scripts/:file serves dc-banners-{id}.js; any other /scripts/* path is the SPA's script page.
  app.get(
    '/scripts/:file',
    // JavaScript for other sites: helmet's page headers do not apply (nosniff is set below). No
    // per-IP limit: shoppers behind one NAT share an IP; caching and 304s protect it.
    { helmet: false, config: { access: 'public' }, schema: { tags: ['script'], summary: "A dealer's embed script, dc-banners-{dealerId}.js (JavaScript)", params: scriptFileParams } },
    async (request, reply) => {
      const match = SCRIPT_FILE.exec(request.params.file);
      if (!match) return reply.callNotFound();
      const current = await app.dealerSites.find(match[1]!);
      if (!current) {
        return reply.status(404).type('application/javascript').send('/* dc-banners: unknown dealer */');
      }
      // The script depends only on the dealer's settings, so it is built and compressed once per
      // dealer version; with hidden empty slots also per set of bare slots, which changes without
      // a write when a promotion starts or ends or a CDN image is found (cached choices: no query).
      const bare = await bareSlots(app, current, app.cdnProbes);
      const key = `${current.id}|${current.version}|${Object.entries(bare).join(';')}`;
      let built = scriptCache.get(key);
      if (built === undefined) scriptLookups.miss();
      else scriptLookups.hit();
      if (built === undefined) {
        const body = Buffer.from(await scriptFor(app, current, bare));
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        built = { body, etag, encoded: await compressVariants(body) };
        scriptCache.set(key, built);
      }
      reply
        .type('application/javascript; charset=utf-8')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Access-Control-Allow-Origin', '*')
        .header('Cache-Control', 'public, max-age=300');
      return sendEntity(request, reply, built);
    },
  );

  app.get(
    '/api/dealers/:dealerId/script',
    { config: { access: 'dealer-read' }, schema: { tags: ['script'], summary: 'The script page: address, tag, script text and summary', params: dealerParams, response: { 200: scriptPageSchema } } },
    async (request) => {
      const dealer = await getDealer(app.db, request.params.dealerId);
      const delivery = await app.dealerSites.find(dealer.id);
      if (!delivery) throw new NotFound(TEXT.dealerNotFound);
      const content = await scriptFor(app, delivery);
      await app.events.flush();
      const stats = await dealerStats(app.db, dealer.id, new Date(0), new Date());
      const mappings = Object.entries(dealer.configs.modelMap);
      const upsellRules = upsellPairs(delivery);
      const info = scriptInfo(app.config.publicOrigin, dealer.id, await snippetFor(app, delivery));
      return {
        ...info,
        tagManager: tagManagerInstall(delivery, info.scriptUrl),
        firstParty: firstPartyInstall(info.scriptTag, info.scriptUrl, app.config.publicOrigin),
        content,
        dealer: {
          id: dealer.id,
          name: dealer.name,
          manufacturer: dealer.manufacturerName,
          provider: dealer.provider,
          status: dealer.status,
        },
        security: { allowedDomains: delivery.security.allowedDomains, enableCors: delivery.security.enableCors, requireHttps: delivery.security.requireHttps },
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
