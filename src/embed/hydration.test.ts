// @vitest-environment jsdom
/**
 * Server-rendered markup a framework hydrates (slots.ts): which elements wait for hydration and
 * until when, the CSS-only veil over a waiting shortcode (no node of the markup changes), the slot
 * made in its place once hydrated, and the component form `<div data-dc-banner>`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterHydration, awaitingHydration, deferText, SLOT_SELECTOR, slotsFor, slotTypeOf, veil } from './slots';
import { HYDRATION_WAIT_MS } from '../domain/page-constants';
import type { EmbedConfig } from '../domain/embed-config';

const SIZES: EmbedConfig['sizes'] = { header: [[1920, 300], [600, 500]], primary: [[350, 564], [350, 564]], upsell: [[300, 250], [300, 250]] };

/** Marks an element as React marks what it has hydrated or rendered (its fiber, under a random key). */
const hydrate = (el: Element) => Object.assign(el, { '__reactFiber$x1y2': {} });

/** A constructed style sheet as the browser's (jsdom has none): its text. */
class Sheet {
  text = '';
  replaceSync(css: string) {
    this.text = css;
  }
}
/** The text of the sheets the embed added to the document (addSheet). */
const sheets = () => (document.adoptedStyleSheets as unknown as Sheet[]).map((s) => s.text);

beforeEach(() => {
  // jsdom has no CSS.escape, matchMedia or constructed style sheets; the page has not loaded unless a test says otherwise.
  vi.stubGlobal('CSS', { escape: (s: string) => s });
  vi.stubGlobal('CSSStyleSheet', Sheet);
  Object.defineProperty(document, 'adoptedStyleSheets', { configurable: true, writable: true, value: [] });
  vi.stubGlobal('matchMedia', () => ({ matches: false }));
  vi.spyOn(performance, 'getEntriesByType').mockReturnValue([]);
  document.body.innerHTML = '<div id="root" data-dc-hydrate><main><p>Compare the Civic: [dc-banner type="upsell"]</p><div class="promo">[dc-banner type="primary"]</div></main></div><p id="plain">[dc-banner type="header"]</p>';
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const $ = (sel: string) => document.querySelector(sel)!;

describe('awaitingHydration', () => {
  it('is true inside a marked region until the framework marks the element, false outside any region', () => {
    expect(awaitingHydration($('.promo'))).toBe(true);
    expect(awaitingHydration($('#plain'))).toBe(false);
    hydrate($('.promo'));
    expect(awaitingHydration($('.promo'))).toBe(false);
    expect(awaitingHydration($('#root p'))).toBe(true); // its own element, not a neighbour's
  });

  it("knows the frameworks' own roots and Vue's vnode without the dealer's mark", () => {
    document.body.innerHTML = '<div id="__next"><p>a</p></div><div data-server-rendered="true"><p>b</p></div><div id="__nuxt"><p>c</p></div>';
    const [next, vue, nuxt] = [...document.querySelectorAll('p')];
    expect([next, vue, nuxt].map((p) => awaitingHydration(p!))).toEqual([true, true, true]);
    Object.defineProperty(nuxt, '__vnode', { value: {}, enumerable: false });
    expect(awaitingHydration(nuxt!)).toBe(false);
    vue!.parentElement!.removeAttribute('data-server-rendered'); // Vue 2 removes it as it hydrates
    expect(awaitingHydration(vue!)).toBe(false);
  });

  it(`gives up ${HYDRATION_WAIT_MS} ms after the load event: a marked region nothing hydrates still gets its banners`, () => {
    vi.spyOn(performance, 'getEntriesByType').mockReturnValue([{ loadEventEnd: 2_000 } as PerformanceNavigationTiming]);
    const now = vi.spyOn(performance, 'now').mockReturnValue(2_000 + HYDRATION_WAIT_MS - 1);
    expect(awaitingHydration($('.promo'))).toBe(true);
    now.mockReturnValue(2_000 + HYDRATION_WAIT_MS);
    expect(awaitingHydration($('.promo'))).toBe(false);
  });
});

describe('afterHydration', () => {
  it('runs at once outside a region, else once the framework has taken the element', () => {
    vi.useFakeTimers();
    const plain = vi.fn();
    afterHydration($('#plain'), plain);
    expect(plain).toHaveBeenCalledTimes(1);
    const later = vi.fn();
    afterHydration($('.promo'), later);
    vi.advanceTimersByTime(500);
    expect(later).not.toHaveBeenCalled();
    hydrate($('.promo'));
    vi.advanceTimersByTime(50);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it('never runs for an element the framework threw away while it waited', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const promo = $('.promo');
    afterHydration(promo, fn);
    promo.remove();
    hydrate(promo);
    vi.advanceTimersByTime(1_000);
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('deferText and veil', () => {
  it('changes no node of waiting markup: the shortcode is veiled by a style rule and its slot made once hydrated', () => {
    vi.useFakeTimers();
    const promo = $('.promo');
    const text = promo.firstChild as Text;
    const made: HTMLElement[] = [];
    expect(deferText(text, () => made.push(...slotsFor(text, () => undefined)))).toBe(true);
    veil(text, SIZES);
    expect(promo.outerHTML).toBe('<div class="promo">[dc-banner type="primary"]</div>');
    // Invisible, no line height (the element holds nothing else), the slot's box as ::after.
    expect(sheets()).toEqual(['#root>:nth-child(1)>:nth-child(2){visibility:hidden;line-height:0}#root>:nth-child(1)>:nth-child(2)::after{content:"";display:block;width:100%;max-width:350px;aspect-ratio:350/564;margin:0 auto;contain:paint}']);
    veil(text, SIZES); // once per node
    expect(sheets()).toHaveLength(1);
    hydrate(promo);
    vi.advanceTimersByTime(50);
    expect(made.map((el) => el.dataset.dcType)).toEqual(['primary']);
    expect(promo.innerHTML).toBe('<div class="dc-banner" data-dc-type="primary"></div>');
    expect(sheets()).toEqual([]); // the slot took the veil's place
  });

  it('keeps the line of words beside a shortcode and reserves the box of the first shortcode', () => {
    const text = $('#root p').firstChild as Text;
    veil(text, SIZES);
    expect(sheets()).toEqual([
      '#root>:nth-child(1)>:nth-child(1){visibility:hidden}#root>:nth-child(1)>:nth-child(1)::after{content:"";display:block;width:100%;max-width:350px;aspect-ratio:300/250;margin:0 auto;contain:paint}',
    ]);
  });

  it('does not defer text outside a region, text without a shortcode, or text already hydrated', () => {
    const then = vi.fn();
    expect(deferText($('#plain').firstChild as Text, then)).toBe(false);
    const words = document.createTextNode('no banner here');
    $('.promo').appendChild(words);
    expect(deferText(words, then)).toBe(false);
    hydrate($('.promo'));
    expect(deferText($('.promo').firstChild as Text, then)).toBe(false);
    expect(then).not.toHaveBeenCalled();
  });
});

describe('slot elements', () => {
  it('finds made slots, dealer markup and the component form, and reads their type in any case', () => {
    document.body.innerHTML = '<div class="dc-banner" data-dc-type="Header"></div><div data-dc-banner="PRIMARY"></div><div data-dc-type="upsell"></div><div class="dc-banner"></div>';
    expect([...document.querySelectorAll(SLOT_SELECTOR)].map(slotTypeOf)).toEqual(['header', 'primary']);
  });
});
