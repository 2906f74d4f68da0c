import { describe, expect, it } from 'vitest';
import { assetUrl, mayHoldShortcode, maxWidth, SHORTCODE, shortcodeTypes, slotSize, unfinishedShortcodeAt, variantFor } from './shortcodes';
import type { SlotSizes } from '../domain/embed-config';
import { SIZE_FAMILIES, SLOT_TYPES, SLOTS } from '../domain/slots';

describe('embed helpers', () => {
  it('finds shortcodes with either quote style', () => {
    expect(shortcodeTypes(`a [dc-banner type="header"] b [dc-banner type='upsell'] [dc-banner type="sidebar"]`)).toEqual(['header', 'upsell']);
  });
  it('finds curly-quoted, upper-case, unquoted and spaced shortcodes', () => {
    const text = '[dc-banner type=”primary”] [DC-BANNER TYPE=“Header”] [dc-banner type=upsell] [dc-banner  type = \u2018header\u2019 ] [dc-banner type="sidebar"]';
    expect(shortcodeTypes(text)).toEqual(['primary', 'header', 'upsell', 'header']);
  });
  it('tells slot types apart by their first letter, as EmbedConfig.bare and SnippetConfig.b write them', () => {
    expect(new Set(SLOT_TYPES.map((t) => t[0])).size).toBe(SLOT_TYPES.length);
  });
  it("is not found in its own source (the inline snippet's code is text in the page)", () => {
    expect(mayHoldShortcode(SHORTCODE.source)).toBe(false);
    expect(mayHoldShortcode(mayHoldShortcode.toString())).toBe(false);
    expect(mayHoldShortcode('see [DC-Banner type=header]')).toBe(true);
  });
  it('finds an unfinished shortcode at the end of a text, and nothing else', () => {
    expect(unfinishedShortcodeAt('Offers: [dc-banner type="')).toBe(8);
    expect(unfinishedShortcodeAt('Offers: [DC-Ban')).toBe(8);
    expect(unfinishedShortcodeAt('[d')).toBe(0);
    expect(unfinishedShortcodeAt('a [dc-banner type=”header')).toBe(2);
    expect(unfinishedShortcodeAt('Offers: [dc-banner type="header"]')).toBe(-1);
    expect(unfinishedShortcodeAt('Offers: [dc-banner type="header"] then')).toBe(-1);
    expect(unfinishedShortcodeAt('see [docs] or [')).toBe(-1);
    expect(unfinishedShortcodeAt(`[dc-banner ${'x'.repeat(41)}`)).toBe(-1);
    expect(mayHoldShortcode(unfinishedShortcodeAt.toString())).toBe(false);
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
  // The script's compact slot facts agree with the slot registry (domain/slots.ts).
  it("finds a shortcode of every registry slot type, and of no other", () => {
    const text = SLOT_TYPES.map((t) => `[dc-banner type="${t}"]`).join(' ') + ' [dc-banner type="sidebar"]';
    expect(shortcodeTypes(text)).toEqual(SLOT_TYPES);
  });
  it("caps each slot at its size family's max width", () => {
    for (const t of SLOT_TYPES) expect(maxWidth(t), t).toBe(SIZE_FAMILIES[SLOTS[t].family].maxWidthPx);
  });
  it("builds the asset URL: the version in every slot's but the header's", () => {
    const c = { apiOrigin: 'https://api.example', dealerId: 'honda-of-demo', version: 7 };
    expect(assetUrl(c, 'cr-v', 'upsell', 'mobile', undefined, 0)).toBe('https://api.example/api/scripts/honda-of-demo/asset?model=cr-v&type=upsell&variant=mobile&v=7&r=0');
    // The header's is the URL the pasted snippet asks for, which knows no version.
    const header = 'https://api.example/api/scripts/honda-of-demo/asset?model=Civic&type=header&variant=desktop&trim=Sport%20Touring&r=1234';
    expect(assetUrl(c, 'Civic', 'header', 'desktop', 'Sport Touring', 1234)).toBe(header);
    expect(assetUrl({ ...c, version: 8 }, 'Civic', 'header', 'desktop', 'Sport Touring', 1234)).toBe(header);
    expect(assetUrl({ apiOrigin: c.apiOrigin, dealerId: c.dealerId }, 'Civic', 'header', 'desktop', 'Sport Touring', 1234)).toBe(header);
  });
});
