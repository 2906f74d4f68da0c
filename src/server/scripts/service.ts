/**
 * The per-dealer embed script: the built bundle (dist/embed) with the dealer's configuration
 * injected in place of the placeholder token (spec 01 §4, §7; spec 02 §2 Script).
 */
import { readFile } from 'node:fs/promises';
import { CONFIG_PLACEHOLDER, type EmbedConfig } from '../../embed/config';
import type { DealerDelivery } from '../delivery/service';

let bundle: { path: string; text: string } | null = null;

async function loadBundle(file: string): Promise<string> {
  if (bundle?.path !== file) bundle = { path: file, text: await readFile(file, 'utf8') };
  return bundle.text;
}

/**
 * The embed configuration of a dealer, as the script receives it: its page plans (the server's
 * slot choice, slot-plan.ts) as model display names and index pairs, so the script knows each
 * slot's model without a round trip and names the same model the image endpoint answers.
 */
export function embedConfig(dealer: DealerDelivery, apiOrigin: string): EmbedConfig {
  const models: string[] = [];
  const index = (name: string) => {
    const i = models.indexOf(name);
    return i >= 0 ? i : models.push(name) - 1;
  };
  const plans: EmbedConfig['plans'] = {};
  for (const [key, plan] of dealer.plans) plans[key] = [index(plan.model.displayName), index(plan.upsell.displayName)];
  return {
    dealerId: dealer.id,
    apiOrigin,
    provider: dealer.provider,
    sizes: dealer.sizes,
    version: dealer.version,
    models,
    plans,
    background: dealer.branding.primaryColor,
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
