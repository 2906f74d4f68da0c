import { describe, expect, it } from 'vitest';
import { activeUpsellRules, isHigherTrimRule, optimalUpsellRules, type UpsellBreakdown } from './upsell';

const b = (totalUnits: number, agedUnits: number, trims: Record<string, number>): UpsellBreakdown => ({ totalUnits, agedUnits, trims });

/** Seed candidates of spec 01 §9. */
const candidates = {
  civic: ['accord'],
  accord: ['cr-v'],
  'hr-v': ['cr-v'],
  'cr-v': ['pilot', 'passport'],
  passport: ['pilot'],
  pilot: ['odyssey'],
  ridgeline: ['pilot'],
  odyssey: ['pilot'],
  prologue: ['cr-v', 'pilot'],
};

describe('optimalUpsellRules (spec 01 §9)', () => {
  it('step 1: trim-based rule when the best-stocked trim is not the first and two trims are deep', () => {
    const rules = optimalUpsellRules({
      breakdown: { civic: b(12, 0, { lx: 5, sport: 7 }), accord: b(10, 0, { lx: 5, se: 5 }) },
      candidates,
      existing: {},
    });
    expect(rules.civic).toBe('civic');
  });

  it('step 1 does not apply when the first trim is the top trim (ties keep the first)', () => {
    const rules = optimalUpsellRules({
      breakdown: { civic: b(12, 0, { lx: 7, sport: 5 }), accord: b(4, 0, { lx: 4 }) },
      candidates,
      existing: {},
    });
    expect(rules).toEqual({});
    const tie = optimalUpsellRules({ breakdown: { civic: b(10, 0, { lx: 5, sport: 5 }) }, candidates: {}, existing: {} });
    expect(tie).toEqual({});
  });

  it('step 1 needs two trims with at least 5 units', () => {
    const rules = optimalUpsellRules({ breakdown: { civic: b(13, 0, { lx: 4, sport: 9 }) }, candidates: {}, existing: {} });
    expect(rules).toEqual({});
  });

  it('step 2: first candidate with >= 5 units, >= 2 trims and aged share under 60%', () => {
    const breakdown = {
      'cr-v': b(3, 0, { lx: 3 }),
      pilot: b(6, 4, { sport: 3, touring: 3 }), // 67% aged: refused
      passport: b(5, 2, { rtl: 3, trailsport: 2 }), // 40% aged: ok
    };
    expect(optimalUpsellRules({ breakdown, candidates, existing: {} })['cr-v']).toBe('passport');
  });

  it('step 2 boundaries: exactly 60% aged refused, under 5 units refused, one trim refused', () => {
    const run = (pilot: UpsellBreakdown) =>
      optimalUpsellRules({ breakdown: { passport: b(2, 0, { rtl: 2 }), pilot }, candidates, existing: {} }).passport;
    expect(run(b(5, 3, { sport: 3, touring: 2 }))).toBeUndefined();
    expect(run(b(5, 2, { sport: 3, touring: 2 }))).toBe('pilot');
    expect(run(b(4, 0, { sport: 2, touring: 2 }))).toBeUndefined();
    expect(run(b(8, 0, { sport: 8 }))).toBeUndefined();
  });

  it('step 2 ignores candidates absent from the inventory and the model itself', () => {
    const rules = optimalUpsellRules({
      breakdown: { civic: b(10, 0, { lx: 10 }) },
      candidates: { civic: ['accord', 'civic'] },
      existing: {},
    });
    expect(rules).toEqual({});
  });

  it('step 3: keeps the existing rule only when its target is in stock', () => {
    const breakdown = { civic: b(2, 0, { lx: 2 }), accord: b(1, 0, { lx: 1 }), 'hr-v': b(1, 0, { lx: 1 }) };
    const rules = optimalUpsellRules({ breakdown, candidates, existing: { civic: 'accord', 'hr-v': 'cr-v' } });
    expect(rules).toEqual({ civic: 'accord' });
  });

  it('step 3 keeps an existing Higher Trim rule of an in-stock model', () => {
    const rules = optimalUpsellRules({ breakdown: { civic: b(2, 0, { lx: 2 }) }, candidates: {}, existing: { Civic: 'civic' } });
    expect(rules).toEqual({ civic: 'civic' });
  });

  it('matches model names by key across breakdown, candidates and existing rules', () => {
    const rules = optimalUpsellRules({
      breakdown: { crv: b(2, 0, { lx: 2 }), pilot: b(9, 1, { sport: 4, touring: 5 }) },
      candidates: { 'CR-V': ['Pilot'] },
      existing: {},
    });
    expect(rules).toEqual({ crv: 'Pilot' });
  });

  it('works on a whole Honda inventory', () => {
    const rules = optimalUpsellRules({
      breakdown: {
        civic: b(20, 2, { lx: 6, sport: 14 }), // step 1
        accord: b(8, 1, { lx: 8 }), // step 2 -> cr-v (cr-v deep and fresh)
        'cr-v': b(15, 3, { lx: 5, ex: 5, 'ex-l': 5 }), // tie on top; candidates pilot and passport absent; step 3 -> existing hr-v (in stock)
        'hr-v': b(3, 3, { lx: 3 }), // step 2 -> cr-v
        odyssey: b(2, 0, { 'ex-l': 2 }), // step 3 via existing -> pilot absent -> none
      },
      candidates,
      existing: { odyssey: 'pilot', 'cr-v': 'hr-v' },
    });
    expect(rules).toEqual({ civic: 'civic', accord: 'cr-v', 'cr-v': 'hr-v', 'hr-v': 'cr-v' });
  });

  it('keys rules by any model name, "__proto__" and "constructor" included', () => {
    const breakdown = JSON.parse(
      '{"__proto__": {"totalUnits": 12, "agedUnits": 0, "trims": {"lx": 5, "sport": 7}}, "constructor": {"totalUnits": 3, "agedUnits": 0, "trims": {"lx": 3}}}',
    ) as Record<string, UpsellBreakdown>;
    const rules = optimalUpsellRules({ breakdown, candidates: JSON.parse('{"constructor": ["__proto__"]}') as Record<string, string[]>, existing: {} });
    expect(Object.entries(rules)).toEqual([
      ['__proto__', '__proto__'],
      ['constructor', '__proto__'],
    ]);
    expect(Object.getPrototypeOf(rules)).toBe(Object.prototype);
  });

  it('is empty for no inventory', () => {
    expect(optimalUpsellRules({ breakdown: {}, candidates, existing: { civic: 'accord' } })).toEqual({});
  });
});

describe('activeUpsellRules (spec 02 §2, §4)', () => {
  const src = {
    manufacturerRules: { civic: 'accord' },
    dealerUpsellMap: { civic: 'cr-v' },
    customRules: { civic: 'pilot' },
    inventoryRules: { civic: 'civic' },
  };

  it('picks the rule set of the strategy', () => {
    expect(activeUpsellRules('manufacturer', src)).toEqual({ civic: 'cr-v' });
    expect(activeUpsellRules('custom', src)).toEqual({ civic: 'pilot' });
    expect(activeUpsellRules('inventory', src)).toEqual({ civic: 'civic' });
  });

  it("manufacturer falls back to the catalogue's rules when the dealer's copy is empty", () => {
    expect(activeUpsellRules('manufacturer', { ...src, dealerUpsellMap: {} })).toEqual({ civic: 'accord' });
  });

  it('inventory without data is empty; custom may be empty', () => {
    expect(activeUpsellRules('inventory', { ...src, inventoryRules: null })).toEqual({});
    expect(activeUpsellRules('custom', { ...src, customRules: {} })).toEqual({});
  });
});

describe('isHigherTrimRule', () => {
  it("labels same-model rules 'Higher Trim'", () => {
    expect(isHigherTrimRule('pilot', 'pilot')).toBe(true);
    expect(isHigherTrimRule('CR-V', 'crv')).toBe(true);
    expect(isHigherTrimRule('cr-v', 'pilot')).toBe(false);
  });
});
