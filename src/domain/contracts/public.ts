/**
 * Contract of the routes dealer sites call (spec 01 §7, DECISIONS 14-17): the banner
 * image, the tracking beacon and the embed script, and the signed-in script page. The hot public
 * routes declare their input only: their answers are images, redirects, JavaScript or 204s.
 */
import { z } from 'zod';
import { assetQuerySchema, providerSchema, trackBodySchema } from '../schemas';

export { assetQuerySchema, trackBodySchema };

/** GET /api/scripts/:dealerId/asset. */
export const deliveryParams = z.object({ dealerId: z.string() });
/** GET /scripts/:file: `dc-banners-{dealerId}.js` (any other name is the web app's script page). */
export const scriptFileParams = z.object({ file: z.string() });

/** GET /api/dealers/:dealerId/script: the script's address, tag, CSP hash, shortcodes, full text and a configuration summary. */
export const scriptPageSchema = z.object({
  scriptUrl: z.string(),
  /** The tag to paste in the page's <head>: the inline snippet, then the async script. */
  scriptTag: z.string(),
  /** The inline snippet's CSP hash, for a script-src without 'unsafe-inline'. */
  snippetHash: z.string(),
  shortcodes: z.array(z.string()),
  /**
   * The install through a tag manager (Google Tag Manager): `tag`, the Custom HTML tag (the async
   * script alone); `markup`, one empty banner element per slot type for the theme's templates;
   * `css`, the style rules that reserve each element's box from the dealer's sizes, for the
   * theme's stylesheet (domain/slot-css.ts bannerElementCss).
   */
  tagManager: z.object({ tag: z.string(), markup: z.array(z.string()), css: z.string() }),
  /**
   * The first-party install (README "First-party install"): `path`, where the dealer's site
   * serves the banner server (`/dcb`); `tag`, the tag above with the snippet's `data-dc-base` and
   * the script on that path (the snippet's CSP hash unchanged); `proxy`, an nginx location block
   * for the dealer's site that forwards `path` to this server.
   */
  firstParty: z.object({ path: z.string(), tag: z.string(), proxy: z.string() }),
  content: z.string(),
  dealer: z.object({ id: z.string(), name: z.string(), manufacturer: z.string(), provider: providerSchema, status: z.string() }),
  /**
   * Where the dealer's pages are counted from (its security settings, edited by admins): the
   * allowed domains, whether they are enforced (`enableCors`), and whether pages must use HTTPS.
   */
  security: z.object({ allowedDomains: z.array(z.string()), enableCors: z.boolean(), requireHttps: z.boolean() }),
  summary: z.object({
    mappings: z.array(z.tuple([z.string(), z.string()])),
    mappingsTotal: z.number(),
    upsellRules: z.array(z.tuple([z.string(), z.string()])),
    upsellRulesTotal: z.number(),
    impressions: z.number(),
    clicks: z.number(),
    ctr: z.number().nullable(),
  }),
});
export type ScriptInfo = z.infer<typeof scriptPageSchema>;
