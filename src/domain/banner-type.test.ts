import { describe, expect, it } from 'vitest';
import { bannerTypeFromDimensions, bannerTypeLabel } from './banner-type';
import { sizesWithFallback } from './defaults';
import type { BannerSizes } from './schemas';

const defaults = sizesWithFallback({});

describe('bannerTypeFromDimensions (spec 01 §5)', () => {
  it('uses the ratio rule without sizes: wider than 2:1 is a header', () => {
    expect(bannerTypeFromDimensions(1920, 300)).toBe('header');
    expect(bannerTypeFromDimensions(350, 564)).toBe('primary');
    expect(bannerTypeFromDimensions(600, 500)).toBe('primary');
  });

  it('treats exactly 2:1 as primary', () => {
    expect(bannerTypeFromDimensions(600, 300)).toBe('primary');
    expect(bannerTypeFromDimensions(601, 300)).toBe('header');
  });

  it('an exact header size wins over the ratio (600x500 mobile header)', () => {
    expect(bannerTypeFromDimensions(600, 500, defaults)).toBe('header');
    expect(bannerTypeFromDimensions(1920, 300, defaults)).toBe('header');
  });

  it('an exact inline size gives primary even when wide', () => {
    const sizes: BannerSizes = { ...defaults, inlineDesktop: { width: 900, height: 300 } };
    expect(bannerTypeFromDimensions(900, 300, sizes)).toBe('primary');
    expect(bannerTypeFromDimensions(350, 564, defaults)).toBe('primary');
  });

  it('checks header sizes before inline sizes', () => {
    const sizes: BannerSizes = { ...defaults, inlineMobile: { width: 600, height: 500 } };
    expect(bannerTypeFromDimensions(600, 500, sizes)).toBe('header');
  });

  it('falls back to the ratio for unconfigured sizes', () => {
    expect(bannerTypeFromDimensions(1200, 250, defaults)).toBe('header');
    expect(bannerTypeFromDimensions(300, 500, defaults)).toBe('primary');
  });
});

describe('bannerTypeLabel (spec 02 §2)', () => {
  it('labels header and inline types', () => {
    expect(bannerTypeLabel('header')).toBe('Header Banner');
    expect(bannerTypeLabel('primary')).toBe('Inline Banner');
    expect(bannerTypeLabel('upsell')).toBe('Inline Banner');
  });
});
