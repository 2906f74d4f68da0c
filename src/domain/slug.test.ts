import { describe, expect, it } from 'vitest';
import { slugify } from './slug';

describe('slugify (DECISIONS 8)', () => {
  it.each([
    ['Honda of Demo', 'honda-of-demo'],
    ['Honda of Demo!', 'honda-of-demo'],
    ['Honda', 'honda'],
    ['  AutoNation   Toyota  ', 'autonation-toyota'],
    ["Bob's Ford & Sons", 'bobs-ford-sons'],
    ['Dealer -- Two', 'dealer-two'],
    ['-Edge-', 'edge'],
    ['Citroën 24', 'citron-24'],
    ['Ünïcode Motors 2', 'ncode-motors-2'],
    ['snake_case_name', 'snakecasename'],
    ['!!!', ''],
    ['', ''],
  ])('%j -> %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('is idempotent', () => {
    expect(slugify(slugify('Honda of Demo!'))).toBe('honda-of-demo');
  });
});
