import { describe, expect, it } from 'vitest';
import { altText, assetUrl, isSlotType, mayHoldShortcode, maxWidth, planOf, SHORTCODE, shortcodeTypes, slotModel, slotSize, variantFor } from './shortcodes';
import type { SlotSizes } from '../domain/embed-config';

describe('embed helpers', () => {
  it('finds shortcodes with either quote style', () => {
    expect(shortcodeTypes(`a [dc-banner type="header"] b [dc-banner type='upsell'] [dc-banner type="sidebar"]`)).toEqual(['header', 'upsell']);
  });
  it('finds curly-quoted, upper-case, unquoted and spaced shortcodes', () => {
    const text = '[dc-banner type=”primary”] [DC-BANNER TYPE=“Header”] [dc-banner type=upsell] [dc-banner  type = \u2018header\u2019 ] [dc-banner type="sidebar"]';
    expect(shortcodeTypes(text)).toEqual(['primary', 'header', 'upsell', 'header']);
  });
  it("is not found in its own source (the inline snippet's code is text in the page)", () => {
    expect(mayHoldShortcode(SHORTCODE.source)).toBe(false);
    expect(mayHoldShortcode(mayHoldShortcode.toString())).toBe(false);
    expect(mayHoldShortcode('see [DC-Banner type=header]')).toBe(true);
  });
  it('switches to mobile at 768 px or less', () => {
    expect(variantFor(768)).toBe('mobile');
    expect(variantFor(769)).toBe('desktop');
  });
  it('sizes slots from the keyed size map and caps widths', () => {
    const sizes: SlotSizes = {
      header: [[1920, 300], [600, 500]],
      primary: [[350, 564], [300, 250]],
      upsell: [[400, 600], [320, 480]],
    };
    expect(slotSize('header', 'desktop', sizes)).toEqual([1920, 300]);
    expect(slotSize('header', 'mobile', sizes)).toEqual([600, 500]);
    expect(slotSize('upsell', 'desktop', sizes)).toEqual([400, 600]);
    expect(slotSize('primary', 'mobile', sizes)).toEqual([300, 250]);
    expect([maxWidth('header'), maxWidth('primary'), maxWidth('upsell')]).toEqual([1920, 350, 350]);
  });
  it('knows the slot types of the registry only', () => {
    expect(['header', 'primary', 'upsell', 'sidebar', 'Header', ''].map(isSlotType)).toEqual([true, true, true, false, false, false]);
  });
  it('names the model each slot shows and its alt text', () => {
    const plan = planOf({ models: [['Civic', 1], ['Accord', -1]], aliases: { civicsedan: 0 } }, 'civic-sedan')!;
    expect(plan).toEqual({ model: 'Civic', upsell: 'Accord' });
    expect([slotModel(plan, 'header'), slotModel(plan, 'primary'), slotModel(plan, 'upsell')]).toEqual(['Civic', 'Civic', 'Accord']);
    expect([altText('Civic', 'header'), altText('Accord', 'upsell')]).toEqual(['Civic offers', 'Accord special']);
    expect(planOf({ models: [['Civic', 1], ['Accord', -1]], aliases: {} }, 'accord')).toBeNull();
  });
  it('builds the asset URL', () => {
    const c = { apiOrigin: 'https://api.example', dealerId: 'honda-of-demo', version: 7 };
    expect(assetUrl(c, 'cr-v', 'upsell', 'mobile', undefined, 0)).toBe('https://api.example/api/scripts/honda-of-demo/asset?model=cr-v&type=upsell&variant=mobile&v=7&r=0');
    expect(assetUrl(c, 'Civic', 'header', 'desktop', 'Sport Touring', 1234)).toBe(
      'https://api.example/api/scripts/honda-of-demo/asset?model=Civic&type=header&variant=desktop&trim=Sport%20Touring&v=7&r=1234',
    );
  });
});
