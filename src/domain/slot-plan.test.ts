/**
 * The one slot-choice function: page model resolution, the three upsell strategies and
 * inventory weights, on the built-in Honda catalogue.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../server/db/seed-catalogue';
import { allPagePlans, beaconModels, countedModelKey, pagePlan, type SlotPlanContext } from './slot-plan';
import { beaconModelKey, UNKNOWN_MODEL_KEY } from './model-keys';
import { optimalUpsellRules, rankCandidates } from './upsell';

const honda = CATALOGUE.find((m) => m.id === 'honda')!;

function ctx(over: Partial<SlotPlanContext> = {}): SlotPlanContext {
  return {
    catalogue: honda.models,
    modelMap: honda.defaultModelMappings,
    strategy: 'manufacturer',
    manufacturerRules: honda.defaultUpsellRules,
    dealerUpsellMap: {},
    customRules: {},
    inventoryRules: null,
    weights: {},
    priorityScores: {},
    ...over,
  };
}

const upsellOf = (page: string, c: SlotPlanContext) => pagePlan(page, c)?.upsell.name;

describe('page model resolution', () => {
  it('resolves a page model through the mappings and the catalogue, with the display name', () => {
    for (const page of ['CR-V', 'crv', 'CRV', 'cr v']) {
      const plan = pagePlan(page, ctx())!;
      expect(plan.model, page).toEqual({ name: 'cr-v', key: 'crv', displayName: 'CR-V' });
    }
    expect(pagePlan('civic sedan', ctx())!.model.name).toBe('civic'); // a mapping source (civicsedan -> civic)
  });

  it('lets the dealer mapping win over the catalogue, and knows a mapping target outside the catalogue', () => {
    const c = ctx({ modelMap: { ...honda.defaultModelMappings, crv: 'pilot', element: 'element' } });
    expect(pagePlan('CR-V', c)!.model.name).toBe('pilot');
    expect(pagePlan('Element', c)!.model).toEqual({ name: 'element', key: 'element', displayName: 'element' });
  });

  it('maps nothing for a model the dealer does not have (the slots are hidden)', () => {
    for (const page of ['Call 555-0100 for 90% off!', 'constructor', '__proto__', 'Camry', '', '---']) {
      expect(pagePlan(page, ctx()), page).toBeNull();
    }
  });
});

describe('upsell slot', () => {
  it('manufacturer strategy: the rule target (civic -> accord, cr-v -> pilot), the model itself without one', () => {
    expect(upsellOf('Civic', ctx())).toBe('accord');
    expect(upsellOf('CR-V', ctx())).toBe('pilot');
    expect(upsellOf('Civic Si', ctx())).toBe('civic-si');
  });

  it("manufacturer strategy: the dealer's own copy of the rules replaces the manufacturer's", () => {
    expect(upsellOf('Civic', ctx({ dealerUpsellMap: { civic: 'hr-v' } }))).toBe('hr-v');
  });

  it('custom strategy: exactly the custom rule, whatever the weights', () => {
    const c = ctx({ strategy: 'custom', customRules: { Civic: 'Odyssey' }, weights: { odyssey: 1, accord: 10 } });
    expect(upsellOf('civic', c)).toBe('odyssey');
    expect(upsellOf('accord', c)).toBe('accord'); // no custom rule: the model itself
  });

  it('inventory strategy: the inventory rules; none without inventory data', () => {
    expect(upsellOf('Civic', ctx({ strategy: 'inventory', inventoryRules: { civic: 'cr-v' } }))).toBe('cr-v');
    expect(upsellOf('Civic', ctx({ strategy: 'inventory', inventoryRules: null }))).toBe('civic');
    expect(upsellOf('Civic', ctx({ strategy: 'inventory', inventoryRules: { civic: 'civic' } }))).toBe('civic'); // Higher Trim
  });

  it('weights: a higher-weighted catalogue candidate beats the rule target; a Low Priority rule target loses to a Normal one', () => {
    // cr-v: rule -> pilot, catalogue upsellTargets [pilot, passport]
    expect(upsellOf('CR-V', ctx({ weights: { passport: 8 } }))).toBe('passport');
    expect(upsellOf('CR-V', ctx({ weights: { pilot: 3 } }))).toBe('passport');
    expect(upsellOf('CR-V', ctx({ weights: { pilot: 3, passport: 2 } }))).toBe('pilot'); // both Low: the rule's
  });

  it('on equal weight: the rule target, then the higher priority score, then catalogue order', () => {
    expect(upsellOf('CR-V', ctx({ priorityScores: { passport: 9, pilot: 2 } }))).toBe('pilot'); // the rule wins the tie
    // prologue has no rule in the dealer's copy: catalogue targets [cr-v, pilot]
    const c = ctx({ dealerUpsellMap: { civic: 'accord' } });
    expect(upsellOf('Prologue', c)).toBe('cr-v');
    expect(upsellOf('Prologue', { ...c, priorityScores: { pilot: 7, crv: 4 } })).toBe('pilot');
  });

  it('keeps the ranked candidates with their weights, best first, marking the rule target', () => {
    const ranking = (page: string, c: SlotPlanContext) => pagePlan(page, c)!.candidates.map((x) => [x.model.displayName, x.weight, x.rule]);
    expect(ranking('CR-V', ctx())).toEqual([
      ['Pilot', 5, true],
      ['Passport', 5, false],
    ]);
    expect(ranking('CR-V', ctx({ weights: { passport: 8, 'cr-v': 2 } }))).toEqual([
      ['Passport', 8, false],
      ['Pilot', 5, true],
    ]);
    expect(ranking('CR-V', ctx({ weights: { Pilot: 3 } }))).toEqual([
      ['Passport', 5, false],
      ['Pilot', 3, true],
    ]);
    // The first candidate is always the one shown.
    const plan = pagePlan('CR-V', ctx({ weights: { passport: 9 } }))!;
    expect(plan.candidates[0]!.model).toEqual(plan.upsell);
    // Custom rules: the one rule target; no rule: no candidates (the slot shows the model itself).
    expect(ranking('Civic', ctx({ strategy: 'custom', customRules: { civic: 'odyssey' }, weights: { odyssey: 1 } }))).toEqual([['Odyssey', 1, true]]);
    expect(pagePlan('Accord', ctx({ strategy: 'custom' }))!.candidates).toEqual([]);
    // Prologue in the dealer's copy has no rule: catalogue targets only, none marked as the rule.
    expect(ranking('Prologue', ctx({ dealerUpsellMap: { civic: 'accord' } }))).toEqual([
      ['CR-V', 5, false],
      ['Pilot', 5, false],
    ]);
  });

  it('ranks candidates by weight, rule, score and order', () => {
    expect(rankCandidates(['a', 'b', 'c'], {}, {})).toEqual(['a', 'b', 'c']);
    expect(rankCandidates(['a', 'b', 'c'], { c: 9 }, {})).toEqual(['c', 'a', 'b']);
    expect(rankCandidates(['a', 'b', 'c'], {}, { b: 3, c: 5 })).toEqual(['c', 'b', 'a']);
    expect(rankCandidates(['a', 'b', 'c'], {}, { b: 3, c: 5 }, true)).toEqual(['a', 'c', 'b']);
  });
});

describe('inventory-optimised rules with weights', () => {
  const deep = (score: number) => ({ totalUnits: 10, agedUnits: 0, trims: { a: 5, b: 5 }, priorityScore: score });
  const breakdown = { crv: { totalUnits: 3, agedUnits: 0, trims: { lx: 3 } }, pilot: deep(4), passport: deep(6) };
  const candidates = { 'cr-v': ['pilot', 'passport'] };

  it('picks the qualifying candidate with the higher weight, then the higher priority score', () => {
    expect(optimalUpsellRules({ breakdown, candidates, existing: {} })).toEqual({ crv: 'passport' }); // score 6 > 4
    expect(optimalUpsellRules({ breakdown, candidates, existing: {}, weights: { pilot: 9 } })).toEqual({ crv: 'pilot' });
  });
});

describe('all page plans (what the embed script is given)', () => {
  it('covers every mapping source, mapping target and catalogue name, by comparison key', () => {
    const plans = allPagePlans(ctx());
    expect(plans.get('crv')!.upsell.displayName).toBe('Pilot');
    expect(plans.get('civicsedan')!.model.name).toBe('civic');
    expect(plans.has('camry')).toBe(false);
    expect([...plans.keys()].every((k) => /^[a-z0-9]+$/.test(k))).toBe(true);
  });
});

describe('the models a beacon may be counted under', () => {
  it('knows every page model, mapping source and target and slot model of the plan, and nothing else', () => {
    const known = beaconModels(allPagePlans(ctx({ modelMap: { ...honda.defaultModelMappings, 'Honda Element': 'element' } })));
    for (const name of ['CR-V', 'Civic Type R', 'civic sedan', 'Honda Element', 'element']) expect(countedModelKey(known, beaconModelKey(name)), name).toBe(beaconModelKey(name));
    for (const name of ['constructor', 'Camry', 'zz9999', 'civic2']) expect(countedModelKey(known, beaconModelKey(name)), name).toBe(UNKNOWN_MODEL_KEY);
  });

  it('counts a known alias under the model it names', () => {
    const known = beaconModels(allPagePlans(ctx({ catalogue: [{ name: 'silverado', displayName: 'Silverado', upsellTargets: [] }], modelMap: {} })));
    expect(countedModelKey(known, beaconModelKey('Silverado 1500'))).toBe('silverado');
    expect(countedModelKey(known, beaconModelKey('Silverado EV'))).toBe(UNKNOWN_MODEL_KEY);
  });
});
