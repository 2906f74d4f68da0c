import { describe, expect, it } from 'vitest';
import {
  alertThresholdOrDefault,
  defaultAssetStorage,
  defaultBranding,
  defaultDealerConfigs,
  defaultNotifications,
  defaultSecurity,
  emptyFallbackAssets,
  maxRequestsOrDefault,
  numberOr,
  parseAllowedDomains,
  sizesWithFallback,
  weightLabel,
} from './defaults';
import { DEFAULT_BANNER_SIZES } from './constants';
import {
  assetStorageSchema,
  brandingSchema,
  dealerConfigsSchema,
  fallbackAssetsSchema,
  notificationsSchema,
  securitySchema,
} from './schemas';

describe('defaultAssetStorage (spec 01 §9)', () => {
  it('builds the CDN base path, default sizes and naming pattern', () => {
    const s = defaultAssetStorage('honda-of-demo');
    expect(s).toEqual({
      provider: 'dc-banners',
      baseUrl: 'https://cdn.dc-banners.com/assets/honda-of-demo',
      fallbackEnabled: true,
      bannerSizes: {
        srpHeaderDesktop: { width: 1920, height: 300 },
        srpHeaderMobile: { width: 600, height: 500 },
        inlineDesktop: { width: 350, height: 564 },
        inlineMobile: { width: 350, height: 564 },
      },
      customNaming: { pattern: 'new_{year}_{model}_{trim}_{size}.{ext}', variables: ['year', 'model', 'trim', 'size', 'ext'] },
      storageQuotaBytes: 52_428_800,
    });
    expect(assetStorageSchema.parse(s)).toEqual(s);
  });

  it('returns fresh objects that do not share the constants', () => {
    const a = defaultAssetStorage('a');
    a.bannerSizes.inlineMobile.height = 1;
    a.customNaming.variables.push('x');
    const b = defaultAssetStorage('a');
    expect(b.bannerSizes.inlineMobile.height).toBe(564);
    expect(b.customNaming.variables).toHaveLength(5);
    expect(DEFAULT_BANNER_SIZES.inlineMobile.height).toBe(564);
  });
});

describe('defaultBranding, defaultNotifications, emptyFallbackAssets (spec 01 §9)', () => {
  it('match the spec and the schemas', () => {
    expect(defaultBranding()).toEqual({ primaryColor: '#000000', secondaryColor: '#666666', logoUrl: '', customCss: '', fontFamily: 'Arial, sans-serif' });
    expect(brandingSchema.safeParse(defaultBranding()).success).toBe(true);
    expect(defaultNotifications()).toEqual({ emailAlerts: true, performanceAlerts: true, errorAlerts: true, weeklyReports: true, alertThreshold: 2 });
    expect(notificationsSchema.safeParse(defaultNotifications()).success).toBe(true);
    expect(emptyFallbackAssets()).toEqual({ srpHeaderDesktop: [], srpHeaderMobile: [], inlineDesktop: [], inlineMobile: [] });
    expect(fallbackAssetsSchema.safeParse(emptyFallbackAssets()).success).toBe(true);
  });
});

describe('defaultSecurity (spec 01 §9)', () => {
  it("allows the dealer site's host and respects Do-Not-Track / GPC", () => {
    const s = defaultSecurity('https://www.hondaofdemo.com/');
    expect(s).toEqual({ allowedDomains: ['www.hondaofdemo.com'], enableCors: true, requireHttps: true, rateLimitEnabled: true, maxRequestsPerMinute: 100, respectDoNotTrack: true });
    expect(securitySchema.safeParse(s).success).toBe(true);
  });

  it('drops port, path and case', () => {
    expect(defaultSecurity(' HTTP://Dealer.Example:8080/path?q=1 ').allowedDomains).toEqual(['dealer.example']);
  });

  it('allows nothing for an unparsable site', () => {
    expect(defaultSecurity('').allowedDomains).toEqual([]);
    expect(defaultSecurity('www.no-scheme.com').allowedDomains).toEqual([]);
  });
});

describe('defaultDealerConfigs (DECISIONS 8)', () => {
  const m = {
    defaultModelMappings: { civic: 'civic', crv: 'cr-v', 'cr-v': 'cr-v', civicsedan: 'civic' },
    defaultUpsellRules: { civic: 'accord', 'cr-v': 'pilot' },
    defaultTrimPatterns: { civic: ['lx', 'sport'] },
  };

  it('copies the manufacturer defaults and weights every canonical model 5', () => {
    const c = defaultDealerConfigs(m, 'mxs');
    expect(c).toEqual({
      modelMap: m.defaultModelMappings,
      upsellMap: m.defaultUpsellRules,
      trimPatterns: m.defaultTrimPatterns,
      inventoryWeights: { civic: 5, 'cr-v': 5 },
      customUpsellLogic: 'manufacturer',
      customUpsellRules: {},
      useManufacturerUpsells: true,
      providerConfig: { type: 'mxs' },
      dataLayerEvents: true,
      emptySlots: 'placeholder',
    });
    expect(dealerConfigsSchema.safeParse(c).success).toBe(true);
  });

  it('does not share objects with the manufacturer', () => {
    const c = defaultDealerConfigs(m, 'custom');
    c.modelMap.x = 'y';
    c.upsellMap.x = 'y';
    c.trimPatterns.civic!.push('si');
    expect(m.defaultModelMappings).not.toHaveProperty('x');
    expect(m.defaultUpsellRules).not.toHaveProperty('x');
    expect(m.defaultTrimPatterns.civic).toEqual(['lx', 'sport']);
  });

  it('works for a manufacturer without defaults', () => {
    const c = defaultDealerConfigs({ defaultModelMappings: {}, defaultUpsellRules: {}, defaultTrimPatterns: {} }, 'dealer-inspire');
    expect(c.inventoryWeights).toEqual({});
    expect(c.providerConfig).toEqual({ type: 'dealer-inspire' });
  });
});

describe('numberOr', () => {
  it.each([
    [12, 12],
    [0, 0],
    [-3.5, -3.5],
    ['12', 12],
    [' 12 ', 12],
    ['12.5', 12.5],
    ['.5', 0.5],
    ['-7', -7],
    ['', 99],
    ['   ', 99],
    ['abc', 99],
    ['12px', 99],
    ['0x10', 99],
    ['1e3', 99],
    ['Infinity', 99],
    [NaN, 99],
    [Infinity, 99],
    [null, 99],
    [undefined, 99],
    [true, 99],
    [{}, 99],
  ])('%j -> %j', (v, out) => {
    expect(numberOr(v, 99)).toBe(out);
  });
});

describe('sizesWithFallback (spec 02 §5, DECISIONS 23)', () => {
  it('keeps numeric and numeric-string values, rounded', () => {
    expect(
      sizesWithFallback({
        srpHeaderDesktop: { width: 1200, height: '250' },
        srpHeaderMobile: { width: '500.4', height: 400 },
        inlineDesktop: { width: 300, height: 500 },
        inlineMobile: { width: 300, height: 500 },
      }),
    ).toEqual({
      srpHeaderDesktop: { width: 1200, height: 250 },
      srpHeaderMobile: { width: 500, height: 400 },
      inlineDesktop: { width: 300, height: 500 },
      inlineMobile: { width: 300, height: 500 },
    });
  });

  it('replaces non-numeric, empty and missing values by the defaults (inline mobile 350x564)', () => {
    expect(
      sizesWithFallback({
        srpHeaderDesktop: { width: 'wide', height: '' },
        srpHeaderMobile: null,
        inlineMobile: { width: 'abc', height: NaN },
      }),
    ).toEqual({
      srpHeaderDesktop: { width: 1920, height: 300 },
      srpHeaderMobile: { width: 600, height: 500 },
      inlineDesktop: { width: 350, height: 564 },
      inlineMobile: { width: 350, height: 564 },
    });
  });

  it('is the default sizes for empty input', () => {
    expect(sizesWithFallback({})).toEqual(DEFAULT_BANNER_SIZES);
  });
});

describe('maxRequestsOrDefault and alertThresholdOrDefault (spec 01 §5)', () => {
  it('fall back when not a number', () => {
    expect(maxRequestsOrDefault('abc')).toBe(100);
    expect(maxRequestsOrDefault('')).toBe(100);
    expect(maxRequestsOrDefault(undefined)).toBe(100);
    expect(maxRequestsOrDefault('250')).toBe(250);
    expect(maxRequestsOrDefault(5)).toBe(5); // range is the schema's check
    expect(alertThresholdOrDefault('x')).toBe(2);
    expect(alertThresholdOrDefault(null)).toBe(2);
    expect(alertThresholdOrDefault('1.5')).toBe(1.5);
    expect(alertThresholdOrDefault(0)).toBe(0);
  });
});

describe('parseAllowedDomains (spec 01 §5)', () => {
  it('one per line, trimmed, blank lines dropped', () => {
    expect(parseAllowedDomains('www.hondaofdemo.com\n\n  hondaofdemo.com  \r\nshop.example\r\n   \n')).toEqual([
      'www.hondaofdemo.com',
      'hondaofdemo.com',
      'shop.example',
    ]);
    expect(parseAllowedDomains('')).toEqual([]);
    expect(parseAllowedDomains('a\rb')).toEqual(['a', 'b']);
  });
});

describe('weightLabel (DECISIONS 22)', () => {
  it.each([
    [10, 'High Priority'],
    [8, 'High Priority'],
    [7, 'Normal Priority'],
    [5, 'Normal Priority'],
    [4, 'Normal Priority'],
    [3, 'Low Priority'],
    [1, 'Low Priority'],
  ])('%i -> %s', (w, label) => {
    expect(weightLabel(w)).toBe(label);
  });
});
