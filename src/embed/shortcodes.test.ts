import { describe, expect, it } from 'vitest';
import { assetUrl, findShortcodes, maxWidth, slotSize, variantFor } from './shortcodes';
import { DEFAULT_BANNER_SIZES } from '../domain/constants';

describe('embed helpers', () => {
  it('finds shortcodes with either quote style', () => {
    expect(findShortcodes(`a [dc-banner type="header"] b [dc-banner type='upsell'] [dc-banner type="sidebar"]`)).toEqual([
      { type: 'header', index: 2, length: 25 },
      { type: 'upsell', index: 30, length: 25 },
    ]);
  });
  it('switches to mobile at 768 px or less', () => {
    expect(variantFor(768)).toBe('mobile');
    expect(variantFor(769)).toBe('desktop');
  });
  it('sizes slots and caps widths', () => {
    expect(slotSize('header', 'desktop', DEFAULT_BANNER_SIZES)).toEqual({ width: 1920, height: 300 });
    expect(slotSize('primary', 'mobile', DEFAULT_BANNER_SIZES)).toEqual({ width: 350, height: 564 });
    expect([maxWidth('header'), maxWidth('upsell')]).toEqual([1920, 350]);
  });
  it('builds the asset URL', () => {
    const c = { apiOrigin: 'https://api.example', dealerId: 'honda-of-demo', version: 7 };
    expect(assetUrl(c, 'cr-v', 'upsell', 'mobile')).toBe('https://api.example/api/scripts/honda-of-demo/asset?model=cr-v&type=upsell&variant=mobile&v=7');
    expect(assetUrl(c, 'Civic', 'header', 'desktop', 'Sport Touring')).toBe(
      'https://api.example/api/scripts/honda-of-demo/asset?model=Civic&type=header&variant=desktop&trim=Sport%20Touring&v=7',
    );
  });
});
