import { describe, expect, it } from 'vitest';
import { MODEL_ALIASES, canonicalModel, modelKey, sameModel } from './model-keys';

describe('modelKey (DECISIONS 25)', () => {
  it.each([
    ['CR-V', 'crv'],
    ['cr v', 'crv'],
    ['Santa Fe', 'santafe'],
    ['F_150', 'f150'],
    ['RAV.4', 'rav4'],
    ['  Grand   Highlander ', 'grandhighlander'],
    ['Civic\tType-R', 'civictyper'],
    ['', ''],
  ])('%j -> %j', (name, key) => {
    expect(modelKey(name)).toBe(key);
  });
});

describe('MODEL_ALIASES', () => {
  it('maps the spec examples crv and hrv to hyphenated names (spec 01 §5)', () => {
    expect(MODEL_ALIASES.crv).toBe('cr-v');
    expect(MODEL_ALIASES.hrv).toBe('hr-v');
    expect(MODEL_ALIASES.f150).toBe('f-150');
    expect(MODEL_ALIASES.santafe).toBe('santa-fe');
    expect(MODEL_ALIASES.rav4).toBe('rav4');
    expect(MODEL_ALIASES.gr86).toBe('gr86');
  });

  it('is keyed by comparison keys and every value is its own canonical form', () => {
    for (const [key, value] of Object.entries(MODEL_ALIASES)) {
      expect(modelKey(key)).toBe(key);
      expect(canonicalModel(value)).toBe(value);
    }
  });

  it('does not carry other brands', () => {
    expect(MODEL_ALIASES.cx5).toBeUndefined();
  });
});

describe('canonicalModel', () => {
  it('uses the alias table for any spelling', () => {
    expect(canonicalModel('CR-V')).toBe('cr-v');
    expect(canonicalModel('crv')).toBe('cr-v');
    expect(canonicalModel('CR V')).toBe('cr-v');
    expect(canonicalModel('Santa Fe')).toBe('santa-fe');
    expect(canonicalModel('Silverado 1500')).toBe('silverado');
  });

  it('prefers the model map, comparing its keys by modelKey', () => {
    const map = { civicsedan: 'civic', 'CR V': 'crv-custom' };
    expect(canonicalModel('Civic Sedan', map)).toBe('civic');
    expect(canonicalModel('cr-v', map)).toBe('crv-custom');
    expect(canonicalModel('Pilot', map)).toBe('pilot');
  });

  it('else lowercases, trims and turns spaces into hyphens', () => {
    expect(canonicalModel('  Grand  Highlander ')).toBe('grand-highlander');
    expect(canonicalModel('Accord')).toBe('accord');
    expect(canonicalModel('')).toBe('');
  });
});

describe('canonicalModel with names of Object.prototype members', () => {
  it('treats them as ordinary model names, not as inherited alias entries', () => {
    expect(canonicalModel('constructor')).toBe('constructor');
    expect(canonicalModel('Constructor')).toBe('constructor');
    expect(canonicalModel('__proto__')).toBe('__proto__');
    expect(canonicalModel('toString')).toBe('tostring');
    expect(canonicalModel('hasOwnProperty')).toBe('hasownproperty');
    expect(canonicalModel('valueOf')).toBe('valueof');
  });

  it('uses a model map whose own keys are such names, and ignores what a map only inherits', () => {
    // JSON.parse makes "__proto__" an own key, as a stored or posted model map has it.
    const map = JSON.parse('{"__proto__": "civic", "constructor": "accord", "toString": "pilot"}') as Record<string, string>;
    expect(canonicalModel('__proto__', map)).toBe('civic');
    expect(canonicalModel('proto', map)).toBe('civic'); // same modelKey
    expect(canonicalModel('Constructor', map)).toBe('accord');
    expect(canonicalModel('tostring', map)).toBe('pilot');
    expect(canonicalModel('CR V', map)).toBe('cr-v');
    expect(canonicalModel('constructor', { civicsedan: 'civic' })).toBe('constructor');
    expect(canonicalModel('hasOwnProperty', {})).toBe('hasownproperty');
  });
});

describe('sameModel', () => {
  it('compares by key', () => {
    expect(sameModel('CR-V', 'crv')).toBe(true);
    expect(sameModel('cr_v', 'Cr.V')).toBe(true);
    expect(sameModel('cr-v', 'hr-v')).toBe(false);
    expect(sameModel('civic', 'civic-hybrid')).toBe(false);
  });
});
