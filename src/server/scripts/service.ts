/**
 * The per-dealer embed script: the built bundle (dist/embed) with the dealer's configuration
 * injected in place of the placeholder token (spec 01 §4, §7; spec 02 §2 Script).
 */
import { readFile } from 'node:fs/promises';
import { CONFIG_PLACEHOLDER, type EmbedConfig } from '../../embed/config';
import type { Dealer } from '../../domain/schemas';
import { activeUpsellRules } from '../../domain/upsell';

let bundle: { path: string; text: string } | null = null;

async function loadBundle(file: string): Promise<string> {
  if (bundle?.path !== file) bundle = { path: file, text: await readFile(file, 'utf8') };
  return bundle.text;
}

/** The embed configuration of a dealer, as the script receives it. */
export function embedConfig(dealer: Dealer, manufacturerRules: Record<string, string>, apiOrigin: string): EmbedConfig {
  return {
    dealerId: dealer.id,
    apiOrigin,
    provider: dealer.provider,
    sizes: dealer.assetStorage.bannerSizes,
    upsellMap: activeUpsellRules(dealer.configs.customUpsellLogic, {
      manufacturerRules,
      dealerUpsellMap: dealer.configs.upsellMap,
      customRules: dealer.configs.customUpsellRules,
      inventoryRules: null,
    }),
  };
}

/**
 * The JavaScript text served at /scripts/dc-banners-{dealerId}.js.
 * @throws Error when the embed bundle has not been built (`npm run build:embed`).
 */
export async function dealerScript(bundleFile: string, config: EmbedConfig): Promise<string> {
  const text = await loadBundle(bundleFile);
  const token = JSON.stringify(CONFIG_PLACEHOLDER);
  if (!text.includes(token)) throw new Error(`Embed bundle ${bundleFile} lacks the ${token} placeholder`);
  // JSON is valid JS; escape '<' so the config can never close a surrounding <script> tag.
  return text.replace(token, () => JSON.stringify(config).replace(/</g, '\\u003c'));
}
