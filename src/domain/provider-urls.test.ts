import { describe, expect, it } from 'vitest';
import { ALL_KEPT_PARAMS, PROVIDER_URLS, privacySafeUrl } from './provider-urls';
import { pathSegments } from './page-url';
import type { Provider } from './schemas';

// The three steps the embedded script takes with its provider's module (embed/index.ts): the
// inventory link for a model, and the model and trim of the page it runs on.
const inventoryUrl = (provider: Provider, origin: string, model: string) => PROVIDER_URLS[provider].inventoryLink(origin, model);
function modelFromPageUrl(provider: Provider, pageUrl: string): string | null {
  const url = URL.canParse(pageUrl) ? new URL(pageUrl) : null;
  return (url && PROVIDER_URLS[provider].pageModel(url, pathSegments(url))?.trim()) || null;
}
function trimFromPageUrl(provider: Provider, pageUrl: string): string | null {
  return (URL.canParse(pageUrl) && new URL(pageUrl).searchParams.get(PROVIDER_URLS[provider].TRIM_PARAM)?.trim()) || null;
}
import { PROVIDERS } from './schemas';

const site = 'https://www.hondaofdemo.com';

describe('inventoryUrl (spec 01 §9)', () => {
  it('mxs: /new-inventory with the model lowercased, spaces and hyphens removed', () => {
    expect(inventoryUrl('mxs', site, 'civic')).toBe(`${site}/new-inventory?new=true&model=civic&fq=1&min-year=2003&max-year=2026`);
    expect(inventoryUrl('mxs', site, 'CR-V')).toBe(`${site}/new-inventory?new=true&model=crv&fq=1&min-year=2003&max-year=2026`);
    expect(inventoryUrl('mxs', site, 'Santa Fe')).toContain('model=santafe&');
  });

  it('dealer-inspire: /new-vehicles/ with encoded _dFR facets', () => {
    expect(inventoryUrl('dealer-inspire', site, 'CR-V')).toBe(
      `${site}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=CR-V&_dFR%5Btype%5D%5B0%5D=New`,
    );
    expect(inventoryUrl('dealer-inspire', site, 'Santa Fe')).toContain('=Santa+Fe&');
  });

  it('custom: /inventory?model=...&type=new', () => {
    expect(inventoryUrl('custom', site, 'cr-v')).toBe(`${site}/inventory?model=cr-v&type=new`);
    expect(inventoryUrl('custom', site, 'Santa Fe & Co')).toBe(`${site}/inventory?model=Santa%20Fe%20%26%20Co&type=new`);
  });

  it.each(PROVIDERS.flatMap((p) => ['civic', 'CR-V', 'Santa Fe', 'F-150'].map((m) => [p, m] as const)))(
    '%s: modelFromPageUrl reads back %j',
    (provider, model) => {
      const back = modelFromPageUrl(provider, inventoryUrl(provider, site, model));
      expect(back).not.toBeNull();
      if (provider === 'mxs') expect(back).toBe(model.toLowerCase().replace(/[\s-]/g, ''));
      else expect(back).toBe(model);
    },
  );
});

describe('modelFromPageUrl', () => {
  it('mxs: /new-inventory with a model', () => {
    expect(modelFromPageUrl('mxs', `${site}/new-inventory?model=civic`)).toBe('civic');
    expect(modelFromPageUrl('mxs', `${site}/new-inventory/index.htm?new=true&model=crv&fq=1`)).toBe('crv');
    expect(modelFromPageUrl('mxs', `${site}/NEW-INVENTORY?model=Pilot`)).toBe('Pilot');
  });

  it('mxs: search pages count with new=true only', () => {
    expect(modelFromPageUrl('mxs', `${site}/search?new=true&model=civic`)).toBe('civic');
    expect(modelFromPageUrl('mxs', `${site}/search?model=civic`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/inventory?new=false&model=civic`)).toBeNull();
  });

  it('mxs: not a new-vehicle page with a model', () => {
    expect(modelFromPageUrl('mxs', `${site}/new-inventory`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/new-inventory?model=`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/new-inventory?model=%20%20`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/new-inventory?new=false&model=civic`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/used-inventory?model=civic`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/new-inventory-specials?model=civic`)).toBeNull();
    expect(modelFromPageUrl('mxs', `${site}/?model=civic`)).toBeNull();
  });

  it('dealer-inspire: brackets encoded or not, type New or absent', () => {
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles/?_dFR[model][0]=CR-V&_dFR[type][0]=New`)).toBe('CR-V');
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=Civic`)).toBe('Civic');
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles/?_dFR%5Btype%5D%5B0%5D=new&_dFR%5Bmodel%5D%5B0%5D=Santa+Fe`)).toBe('Santa Fe');
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles?_dFR[model][0]=Pilot`)).toBe('Pilot');
  });

  it('dealer-inspire: not a new-vehicle page with a model', () => {
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles/?_dFR[model][0]=Civic&_dFR[type][0]=Used`)).toBeNull();
    expect(modelFromPageUrl('dealer-inspire', `${site}/used-vehicles/?_dFR[model][0]=Civic`)).toBeNull();
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles/`)).toBeNull();
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-vehicles/?model=Civic`)).toBeNull();
  });

  it('custom: /inventory with type new or absent', () => {
    expect(modelFromPageUrl('custom', `${site}/inventory?model=civic&type=new`)).toBe('civic');
    expect(modelFromPageUrl('custom', `${site}/inventory?model=civic`)).toBe('civic');
    expect(modelFromPageUrl('custom', `${site}/inventory?model=civic&type=New`)).toBe('civic');
    expect(modelFromPageUrl('custom', `${site}/inventory?model=civic&type=used`)).toBeNull();
    expect(modelFromPageUrl('custom', `${site}/used-inventory?model=civic`)).toBeNull();
    expect(modelFromPageUrl('custom', `${site}/inventory`)).toBeNull();
  });

  it('a page of another provider does not match', () => {
    expect(modelFromPageUrl('dealer-inspire', `${site}/new-inventory?model=civic`)).toBeNull();
    expect(modelFromPageUrl('custom', `${site}/new-vehicles/?_dFR[model][0]=Civic`)).toBeNull();
  });

  it('returns null for unparsable or relative URLs', () => {
    for (const p of PROVIDERS) {
      expect(modelFromPageUrl(p, 'not a url')).toBeNull();
      expect(modelFromPageUrl(p, '/new-inventory?model=civic')).toBeNull();
      expect(modelFromPageUrl(p, '')).toBeNull();
    }
  });
});

describe('trimFromPageUrl', () => {
  it("reads each provider's trim parameter", () => {
    expect(trimFromPageUrl('mxs', 'https://d.example/new-inventory?model=civic&trim=Sport')).toBe('Sport');
    expect(trimFromPageUrl('dealer-inspire', 'https://d.example/new-vehicles/?_dFR%5Btrim%5D%5B0%5D=EX-L')).toBe('EX-L');
    expect(trimFromPageUrl('custom', 'https://d.example/inventory?model=civic&trim=%20%20')).toBeNull();
    expect(trimFromPageUrl('custom', 'not a url')).toBeNull();
  });
});

describe('privacySafeUrl', () => {
  it('keeps origin, path and the model filters; drops every other parameter and the hash', () => {
    expect(privacySafeUrl('https://d.example/contact?name=Jane+Doe&email=j%40x.com&phone=555&model=civic#lead', ALL_KEPT_PARAMS)).toBe('https://d.example/contact?model=civic');
    expect(privacySafeUrl('https://d.example/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=CR-V&_dFR%5Btype%5D%5B0%5D=New&utm_source=x', ALL_KEPT_PARAMS)).toBe(
      'https://d.example/new-vehicles/?_dFR%5Bmodel%5D%5B0%5D=CR-V&_dFR%5Btype%5D%5B0%5D=New',
    );
    expect(privacySafeUrl('https://d.example/inventory', ALL_KEPT_PARAMS)).toBe('https://d.example/inventory');
    expect(privacySafeUrl('nope', ALL_KEPT_PARAMS)).toBeNull();
  });
});
