/**
 * The per-dealer embed script: the built bundle (dist/embed) with the dealer's configuration
 * injected in place of the placeholder token (spec 01 §4, §7; spec 02 §2 Script).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_PLACEHOLDER, embedSettings, type EmbedConfig, type SnippetConfig } from '../../domain/embed-config';
import type { DealerDelivery } from '../dealer-sites';
import type { Provider } from '../../domain/schemas';
import { modelKey } from '../../domain/model-keys';
import { perSlotType, SIZE_FAMILIES, SLOT_TYPES, SLOTS, VARIANTS } from '../../domain/slots';
import { bannerElementCss } from '../../domain/slot-css';
import { slotSize } from '../../domain/asset-choice';

/** Where built bundle texts are kept by file (app.caches.bundles): read once per app. */
export interface BundleCache {
  get(file: string): string | undefined;
  set(file: string, text: string): unknown;
}

async function loadBundle(bundles: BundleCache, file: string): Promise<string> {
  let text = bundles.get(file);
  if (text === undefined) bundles.set(file, (text = await readFile(file, 'utf8')));
  return text;
}

/**
 * The embed configuration of a dealer, as the script receives it: its page plans (the server's
 * slot choice, slot-plan.ts) compacted to a model list and aliases (see EmbedConfig), so the script
 * knows each slot's model without a round trip and names the same model the image endpoint answers.
 * `bare`: the slots without a creative when the dealer hides them (delivery/service.ts bareSlots).
 */
export function embedConfig(dealer: DealerDelivery, apiOrigin: string, bare: Record<string, string> = {}): EmbedConfig {
  const models: EmbedConfig['models'] = [];
  const index = (name: string) => {
    const i = models.findIndex((m) => m[0] === name);
    return i >= 0 ? i : models.push([name, -1]) - 1;
  };
  const aliases: EmbedConfig['aliases'] = {};
  for (const [key, plan] of dealer.plans) {
    const i = index(plan.model.displayName);
    models[i]![1] = index(plan.upsell.displayName); // the upsell depends on the standard model only
    if (modelKey(plan.model.displayName) !== key) aliases[key] = i;
  }
  return {
    dealerId: dealer.id,
    apiOrigin,
    sizes: perSlotType((slot) => VARIANTS.map((v) => slotSize(slot, v, dealer.sizes)).map((z) => [z.width, z.height])),
    version: dealer.version,
    models,
    aliases,
    ...embedSettings(dealer),
    ...(Object.keys(bare).length ? { bare } : {}),
  };
}

/** The bundle of one provider beside the EMBED_DIST_FILE base name: dist/embed/dc-banners.js -> dist/embed/dc-banners.mxs.js (scripts/build-embed.ts). */
export function embedBundleFile(base: string, provider: Provider): string {
  return base.replace(/\.js$/, `.${provider}.js`);
}

/**
 * A built bundle with `config` injected in place of its placeholder token: the JavaScript text
 * served at /scripts/dc-banners-{dealerId}.js (with EmbedConfig) or the inline snippet (with
 * SnippetConfig); `bundles` keeps the bundle texts read (app.caches.bundles). @throws Error when
 * the bundle has not been built (`npm run build:embed`).
 */
export async function dealerScript(bundleFile: string, config: EmbedConfig | SnippetConfig, bundles: BundleCache): Promise<string> {
  const text = await loadBundle(bundles, bundleFile);
  const token = JSON.stringify(CONFIG_PLACEHOLDER);
  if (!text.includes(token)) throw new Error(`Embed bundle ${bundleFile} lacks the ${token} placeholder`);
  // JSON is valid JS; escape '<' so the config can never close a surrounding <script> tag.
  return text.replace(token, () => JSON.stringify(config).replace(/</g, '\\u003c'));
}

/**
 * The inline snippet's configuration of a dealer (snippet.ts): slot sizes, the page model keys it
 * has, the image endpoint (the snippet requests the header creative while the page parses) and,
 * when the dealer hides them, the slots without a creative (`bare`, as embedConfig's).
 */
export function snippetConfig(dealer: DealerDelivery, apiOrigin: string, bare: Record<string, string> = {}): SnippetConfig {
  return { s: embedConfig(dealer, apiOrigin).sizes, k: [...dealer.plans.keys()].join('|'), apiOrigin, dealerId: dealer.id, ...(Object.keys(bare).length ? { b: bare } : {}) };
}

/** The snippet bundle beside EMBED_DIST_FILE: dist/embed/dc-banners.js -> dist/embed/snippet.mxs.js (scripts/build-embed.ts). */
export function snippetBundleFile(base: string, provider: Provider): string {
  return embedBundleFile(path.join(path.dirname(base), 'snippet.js'), provider);
}

/**
 * The configuration injected into a served dealer script (the inverse of dealerScript; tests and
 * diagnostics). @throws Error when the text holds no configuration.
 */
export function embeddedConfig(script: string): EmbedConfig {
  const start = script.indexOf('{"dealerId":');
  if (start < 0) throw new Error('No dc-banners configuration in this script');
  // The object ends where its braces balance (strings skipped).
  let depth = 0;
  for (let i = start, inString = false; i < script.length; i++) {
    const c = script[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return JSON.parse(script.slice(start, i + 1)) as EmbedConfig;
  }
  throw new Error('Unterminated dc-banners configuration');
}

/**
 * The install through a tag manager (spec 02 §2 Script; README "Installing through a tag
 * manager"): the tag manager injects only the async script at `scriptUrl` (a Custom HTML tag, which
 * runs after the page's first paint), the theme carries one empty banner element per slot type
 * where its banner goes (no shortcode text, so none is ever painted raw), and the theme's
 * stylesheet reserves each element's box per device from the dealer's sizes, with the same rules
 * the inline snippet uses (domain/slot-css.ts), so the late script shifts nothing.
 */
export function tagManagerInstall(dealer: DealerDelivery, scriptUrl: string): { tag: string; markup: string[]; css: string } {
  return {
    tag: `<script src="${scriptUrl}" async></script>`,
    markup: SLOT_TYPES.map((t) => `<div data-dc-banner="${t}"></div>`),
    css: bannerElementCss(embedConfig(dealer, '').sizes, (t) => SIZE_FAMILIES[SLOTS[t].family].maxWidthPx, '\n'),
  };
}

/** The path a first-party install serves the banner server under on the dealer's own site (README "First-party install"). */
export const FIRST_PARTY_PATH = '/dcb';

/**
 * The first-party install (README "First-party install"): the dealer's own site serves the
 * script, images and beacons under `path` through a reverse proxy to `publicOrigin`. `tag` is the
 * Script page's tag with its two edits: the inline snippet's `data-dc-base` (its code, and so its
 * CSP hash, unchanged) and the script's address on the dealer's own path (the script builds its
 * image and beacon addresses from that); `proxy`, an nginx location block for the dealer's site.
 */
export function firstPartyInstall(scriptTag: string, scriptUrl: string, publicOrigin: string, path = FIRST_PARTY_PATH): { path: string; tag: string; proxy: string } {
  const upstream = new URL(publicOrigin);
  const local = `${path}${scriptUrl.slice(publicOrigin.length)}`;
  return {
    path,
    tag: scriptTag.replace('<script>', `<script data-dc-base="${path}">`).replace(`src="${scriptUrl}"`, `src="${local}"`),
    proxy: [
      `location ${path}/ {`,
      `    proxy_pass ${publicOrigin}/;`,
      ...(upstream.protocol === 'https:' ? ['    proxy_ssl_server_name on;'] : []),
      `    proxy_set_header Host ${upstream.host};`,
      '    proxy_set_header Cookie "";',
      '    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      '    proxy_set_header X-Forwarded-Proto $scheme;',
      '    proxy_http_version 1.1;',
      '    proxy_set_header Connection "";',
      '}',
    ].join('\n'),
  };
}
