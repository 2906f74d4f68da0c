/**
 * Display names of models: screens show a model as its manufacturer's catalogue writes
 * it ('CR-V', 'Civic Type R'), never as the lower-case canonical key ('cr-v', 'civic-type-r') the
 * mappings, rules, inventory and analytics store. Pure; used by the web app with the catalogue of
 * GET /api/dealers/:dealerId/models.
 */
import { canonicalModel, modelKey } from './model-keys';

/** A catalogue model as the screens need it: its canonical name and its display name. */
export interface ModelName {
  name: string;
  displayName: string;
}

/**
 * A function naming any spelling of a model ('cr-v', 'crv', 'CR V', the alias 'silverado1500') by
 * the catalogue's display name, compared by modelKey against the catalogue's names and display
 * names (directly or through the known aliases); a model the catalogue does not hold keeps the
 * text it was given.
 */
export function modelNamer(catalogue: ReadonlyArray<ModelName>): (model: string) => string {
  const byKey = new Map<string, string>();
  for (const m of catalogue) byKey.set(modelKey(m.name), m.displayName);
  for (const m of catalogue) if (!byKey.has(modelKey(m.displayName))) byKey.set(modelKey(m.displayName), m.displayName);
  return (model) => byKey.get(modelKey(model)) ?? byKey.get(modelKey(canonicalModel(model))) ?? model;
}
