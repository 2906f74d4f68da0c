import { describe, expect, it } from 'vitest';
import { modelNamer } from './model-names';

const name = modelNamer([
  { name: 'cr-v', displayName: 'CR-V' },
  { name: 'civic-type-r', displayName: 'Civic Type R' },
  { name: 'silverado', displayName: 'Silverado 1500' },
]);

describe('modelNamer', () => {
  it('names canonical keys and other spellings by the catalogue display name', () => {
    expect(name('cr-v')).toBe('CR-V');
    expect(name('crv')).toBe('CR-V');
    expect(name('CR V')).toBe('CR-V');
    expect(name('civic-type-r')).toBe('Civic Type R');
    expect(name('silverado1500')).toBe('Silverado 1500');
  });

  it('keeps a model the catalogue does not hold as given, prototype names included', () => {
    expect(name('pilot')).toBe('pilot');
    expect(name('(none)')).toBe('(none)');
    expect(name('constructor')).toBe('constructor');
  });
});
