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

describe('sameModel', () => {
  it('compares by key', () => {
    expect(sameModel('CR-V', 'crv')).toBe(true);
    expect(sameModel('cr_v', 'Cr.V')).toBe(true);
    expect(sameModel('cr-v', 'hr-v')).toBe(false);
    expect(sameModel('civic', 'civic-hybrid')).toBe(false);
  });
});
