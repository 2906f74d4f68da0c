// @vitest-environment jsdom
/**
 * Consent signals as the embed reads them (slots.ts listenConsent, consentDenied, rotationBucket;
 * README "Consent"): Google Consent Mode's analytics_storage in the page's dataLayer, a TCF v2 CMP
 * (`__tcfapi`), a GPP CMP (`__gpp`) and Do-Not-Track / Global Privacy Control. Each signal is
 * given the way a real page gives it (gtag's `arguments`, a CMP stub that queues calls until its
 * CMP has loaded), and the test reads what the script does with it: whether it may send and
 * store (consentDenied) and whether the rotation bucket lands in sessionStorage.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Slots = typeof import('./slots');
/** A fresh copy of slots.ts: the CMP answers it keeps are per page (module state). */
let slots: Slots;

type Page = Window & { dataLayer?: unknown; __tcfapi?: unknown; __gpp?: unknown };
const page = window as Page;

beforeEach(async () => {
  vi.resetModules();
  slots = await import('./slots');
  sessionStorage.clear();
});
afterEach(() => {
  delete page.dataLayer;
  delete page.__tcfapi;
  delete page.__gpp;
  vi.unstubAllGlobals();
});

/** gtag as Google's snippet defines it: pushes its `arguments` object onto the dataLayer. */
function gtag(..._args: unknown[]): void {
  // eslint-disable-next-line prefer-rest-params -- gtag pushes its arguments object, which is what the script must read
  (page.dataLayer as unknown[]).push(arguments);
}

/** The rotation bucket the way the snippet asks for it: stored unless something denies it. */
const bucketStored = () => {
  slots.rotationBucket(() => slots.consentDenied(true));
  return sessionStorage.getItem('dcb_r') !== null;
};

describe('Google Consent Mode (dataLayer)', () => {
  beforeEach(() => {
    page.dataLayer = [];
  });

  it('allows counting without any consent command, and with analytics_storage granted', () => {
    (page.dataLayer as unknown[]).push({ event: 'gtm.js' }, { event: 'page_view', page_type: 'srp' });
    expect(slots.consentDenied(true)).toBe(false);
    gtag('consent', 'default', { analytics_storage: 'granted', ad_storage: 'granted' });
    expect(slots.consentDenied(true)).toBe(false);
    expect(bucketStored()).toBe(true);
  });

  it('denies while analytics_storage is denied, and the last command naming it decides (a later grant)', () => {
    gtag('consent', 'default', { analytics_storage: 'denied', ad_storage: 'denied', wait_for_update: 500 });
    expect(slots.consentDenied(false)).toBe(true); // a consent denial is honoured whatever the dealer's DNT setting
    expect(bucketStored()).toBe(false);
    gtag('consent', 'update', { ad_storage: 'granted' }); // does not name analytics_storage: still denied
    expect(slots.consentDenied(true)).toBe(true);
    gtag('consent', 'update', { analytics_storage: 'granted' });
    expect(slots.consentDenied(true)).toBe(false);
    expect(bucketStored()).toBe(true);
  });

  it('reads ad_storage alone as no denial: the script stores nothing for advertising', () => {
    gtag('consent', 'default', { ad_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied' });
    expect(slots.consentDenied(true)).toBe(false);
  });

  it('treats a dataLayer that is not iterable as a denial: nothing is stored, no error reaches the page', () => {
    page.dataLayer = { push: () => 0 };
    expect(() => slots.consentDenied(true)).toThrow(TypeError);
    expect(slots.rotationBucket(() => slots.consentDenied(true))).toBe(0);
    expect(sessionStorage.getItem('dcb_r')).toBeNull();
  });
});

/** What a TCF v2 CMP hands its listeners. */
interface TcData {
  eventStatus: 'tcloaded' | 'cmpuishown' | 'useractioncomplete';
  gdprApplies: boolean;
  purpose: { consents: Record<number, boolean>; legitimateInterests: Record<number, boolean> };
  listenerId?: number;
}

/**
 * A TCF v2 CMP as a page has it: the stub queues calls until `load(data)`, after which listeners
 * get the current TC data at once and again on each `change(data)`.
 */
function tcfCmp() {
  const listeners: Array<(d: TcData, ok: boolean) => void> = [];
  let current: TcData | undefined;
  page.__tcfapi = (command: string, version: number, callback: (d: TcData, ok: boolean) => void) => {
    if (command !== 'addEventListener' || version !== 2) return;
    listeners.push(callback);
    if (current) callback({ ...current, listenerId: listeners.length }, true);
  };
  const change = (data: TcData) => {
    current = data;
    listeners.forEach((l, i) => l({ ...data, listenerId: i + 1 }, true));
  };
  return { load: change, change };
}
const tc = (eventStatus: TcData['eventStatus'], gdprApplies: boolean, consents: number[]): TcData => ({
  eventStatus,
  gdprApplies,
  purpose: { consents: Object.fromEntries(consents.map((p) => [p, true])), legitimateInterests: {} },
});

describe('TCF v2 (__tcfapi)', () => {
  it('denies until the CMP first answers, then follows the shopper\'s choice of purposes 1 and 7', () => {
    const cmp = tcfCmp();
    slots.listenConsent();
    expect(slots.consentDenied(true)).toBe(true); // the stub has queued the call
    cmp.load(tc('cmpuishown', true, [])); // the banner is up: nothing chosen yet
    expect(slots.consentDenied(true)).toBe(true);
    cmp.change(tc('useractioncomplete', true, [1, 7, 8, 9, 10]));
    expect(slots.consentDenied(true)).toBe(false);
    expect(bucketStored()).toBe(true);
  });

  it('denies without consent to measuring advertising performance (purpose 7), or to device storage (purpose 1)', () => {
    const cmp = tcfCmp();
    cmp.load(tc('tcloaded', true, [1, 8, 9]));
    slots.listenConsent();
    expect(slots.consentDenied(false)).toBe(true);
    expect(bucketStored()).toBe(false);
    cmp.change(tc('useractioncomplete', true, [7]));
    expect(slots.consentDenied(true)).toBe(true);
  });

  it('never throws into the page or the CMP: a global that is no CMP, TC data without purposes (both read as a denial)', () => {
    page.__tcfapi = { version: 2 };
    expect(() => slots.listenConsent()).not.toThrow();
    expect(slots.consentDenied(true)).toBe(true);
    let answered = false;
    page.__tcfapi = (_command: string, _version: number, callback: (d: unknown, ok: boolean) => void) => {
      callback({ eventStatus: 'tcloaded', gdprApplies: true }, true);
      answered = true; // the CMP's own code after the call runs on
    };
    expect(() => slots.listenConsent()).not.toThrow();
    expect(answered).toBe(true);
    expect(slots.consentDenied(true)).toBe(true);
  });

  it('allows counting where the GDPR does not apply, whatever the purposes', () => {
    tcfCmp().load(tc('tcloaded', false, []));
    slots.listenConsent();
    expect(slots.consentDenied(true)).toBe(false);
  });
});

/** A GPP CMP (1.1): listeners get an event whose pingData carries the parsed sections. */
function gppCmp(parsedSections: Record<string, unknown>) {
  page.__gpp = (command: string, callback: (event: unknown) => void) => {
    if (command !== 'addEventListener') return;
    callback({ eventName: 'listenerRegistered', listenerId: 1, data: true, pingData: { gppVersion: '1.1', cmpStatus: 'loaded', signalStatus: 'ready', applicableSections: [7], parsedSections } });
  };
}
/** A usnat section as GPP parses it (0: not applicable, 1: opted out / notice given, 2: did not opt out). */
const usnat = (optOuts: { SaleOptOut?: number; SharingOptOut?: number; TargetedAdvertisingOptOut?: number }) => ({
  usnat: [{ Version: 1, SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1, SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2, ...optOuts, MspaCoveredTransaction: 2 }, { Gpc: false }],
});

describe('GPP (__gpp)', () => {
  it('allows counting when the shopper did not opt out (notices given are no opt-out)', () => {
    gppCmp(usnat({}));
    slots.listenConsent();
    expect(slots.consentDenied(true)).toBe(false);
    expect(bucketStored()).toBe(true);
  });

  for (const field of ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'] as const) {
    it(`denies after an opt-out (${field}: 1) when the dealer respects opt-outs, as for Global Privacy Control`, () => {
      gppCmp({ ...usnat({ [field]: 1 }), usca: [{ SaleOptOut: 2 }] });
      slots.listenConsent();
      expect(slots.consentDenied(true)).toBe(true);
      expect(slots.consentDenied(false)).toBe(false); // the dealer turned "Respect Do-Not-Track / GPC" off
      expect(bucketStored()).toBe(false);
    });
  }
});

describe('Do-Not-Track and Global Privacy Control', () => {
  it('deny only when the dealer respects them', () => {
    vi.stubGlobal('navigator', { ...navigator, globalPrivacyControl: true });
    expect(slots.consentDenied(true)).toBe(true);
    expect(slots.consentDenied(false)).toBe(false);
    vi.stubGlobal('navigator', { doNotTrack: '1' });
    expect(slots.consentDenied(true)).toBe(true);
  });
});

describe('no CMP and no signal', () => {
  it('counts and keeps the rotation bucket for the session, the same number on every read', () => {
    slots.listenConsent();
    expect(slots.consentDenied(true)).toBe(false);
    const first = slots.rotationBucket(() => slots.consentDenied(true));
    expect(sessionStorage.getItem('dcb_r')).toBe(String(first));
    expect(slots.rotationBucket(() => slots.consentDenied(true))).toBe(first);
  });
});
