/**
 * The inline snippet handed out with the embed script ("a tag that costs the page
 * nothing"), generated per dealer and pasted in the page's <head> before the async script tag.
 * Inline, so it runs while the page parses without waiting for the network: a MutationObserver
 * takes each shortcode as the parser adds it (slots.ts: the text blanked, a slot element inserted
 * beside it) before the first paint, reserving the slot's box from the dealer's sizes on a search
 * page of a model the dealer has, hidden elsewhere and where the dealer hides a slot without a
 * creative (SnippetConfig.b) (a shortcode the parser delivers across two
 * network chunks is joined first, its start withheld meanwhile). Raw shortcode text is never painted and the
 * banner arriving later shifts nothing. If the main script never takes over (it fails to load: an
 * ad blocker, a Content-Security-Policy, our server down; or it has not started SCRIPT_GRACE_MS
 * after the page's load event), the console says why once and the empty boxes collapse once out
 * of view (slots.ts whenScriptMissing, collapseOutOfView: nothing the shopper is looking at
 * moves); the header keeps its early creative once loaded (a visible banner, unlinked and
 * uncounted). A main script arriving later still shows them all.
 *
 * The header creative is requested as soon as the page shows its first banner (the parser adds a
 * shortcode or slot element; at once when the snippet runs after parsing, from a tag manager),
 * when the configuration names the image endpoint (apiOrigin, dealerId): the header is usually
 * the page's largest element, and waiting for the main script would delay the page's LCP by the
 * script's round trip. Not before: on a page drawn client-side (an empty root its bundle fills)
 * the image would share a slow network with the bundle its first paint waits for (bench: +254 ms
 * FCP on a phone at Slow 4G). On a model search page without a header shortcode that request is
 * wasted. The header's URL names no dealer version (shortcodes.ts assetUrl), so it
 * stays the URL the main script asks for whatever settings changed since the tag was pasted:
 * the script's image of the same URL is drawn from the memory cache, and the header downloads once.
 *
 * The page's model and viewport are read when a slot is made (a viewport meta after the snippet,
 * or a single-page app's later navigation, counts), the viewport through a media query, which
 * makes the browser lay out nothing. The boxes stay transparent (the main script adds the
 * dealer's colour once a creative has loaded). Once the main script runs it takes shortcodes
 * itself and the snippet stops observing. No globals; never throws.
 *
 * Frameworks: in server-rendered markup a framework is about to hydrate (slots.ts HYDRATED_ROOTS:
 * Next.js, Nuxt, Gatsby, Vue, or an element marked `data-dc-hydrate`) no node is changed before the
 * framework has taken it: the shortcodes are hidden and their box reserved by CSS alone (slots.ts
 * veil), their slots made once hydrated. The component form `<div data-dc-banner="header">`
 * gets its box from a style rule here, per viewport, before the first paint.
 */
import { CONFIG_PLACEHOLDER, type SnippetConfig } from '../domain/embed-config';
import { assetUrl, isBare, mayHoldShortcode, maxWidth, slotSize, variantFor, type Slot } from './shortcodes';
import type { Variant } from '../domain/slots';
import { addedRoots, addSheet, collapseOutOfView, deferText, IMG_STYLE, isHeld, listenConsent, consentDenied, rotationBucket, shortcodeTexts, SLOT_SELECTOR, slotsFor, veil, viewportVariant, whenScriptMissing } from './slots';
import { bannerElementCss, reserveStyle } from '../domain/slot-css';
import { pageModel, TRIM_PARAM } from './provider';
import { pathSegments } from '../domain/page-url';
import { modelKey } from '../domain/model-keys';

try {
  const c = CONFIG_PLACEHOLDER as unknown as SnippetConfig;
  // A first-party install (README "First-party install"): the snippet's own tag names the path the
  // dealer's site proxies to the banner server, `<script data-dc-base="/dcb">`; the header creative
  // is requested there (the main script finds the same base from its own src).
  c.apiOrigin = (document.currentScript as HTMLScriptElement | null)?.dataset.dcBase ?? c.apiOrigin;
  listenConsent();
  /**
   * Nothing may be stored now (the rotation bucket): Do-Not-Track, Global Privacy Control or a
   * GPP opt-out (the dealer's setting is not known here), or a consent denial (slots.ts consentDenied).
   */
  const quiet = () => consentDenied(true);
  /** The page's model when it is a search page of a model the dealer has, else undefined (slots hidden). */
  const modelOf = (url: URL) => {
    const model = pageModel(url, pathSegments(url))?.trim();
    return model && c.k.split('|').includes(modelKey(model)) ? model : undefined;
  };
  /** True when the dealer hides the page's `type` slot: its model has no creative (SnippetConfig.b). */
  const bare = (model: string, type: Slot) => isBare(c.b, model, type);
  /** The header creative's URL for this page at `variant`, as the main script will ask for it; undefined without the endpoint or a model, or for a bare header. */
  const headerSrc = (variant: Variant) => {
    const url = new URL(location.href);
    const model = modelOf(url);
    return model && c.apiOrigin && !bare(model, 'header') ? assetUrl(c as Required<SnippetConfig>, model, 'header', variant, url.searchParams.get(TRIM_PARAM)?.trim(), rotationBucket(quiet)) : undefined;
  };
  /** The header image requested early, and its URL: the first header slot of that URL takes it. */
  let early: [string, HTMLImageElement] | undefined;
  const image = (src: string) => {
    const taken = early?.[0] === src && early[1];
    early = undefined;
    if (taken) return taken;
    const img = new Image();
    img.alt = '';
    img.style.cssText = IMG_STYLE;
    img.onerror = () => img.remove(); // no broken-image icon; the main script swaps to the placeholder
    img.fetchPriority = 'high';
    // The same srcset as the main script's, so both pick the same URL at any device pixel ratio.
    img.srcset = `${src} 1x, ${src}&scale=2 2x`;
    img.src = src;
    return img;
  };
  const reserve = (el: HTMLElement) => {
    const type = el.getAttribute('data-dc-type') as Slot;
    const model = modelOf(new URL(location.href));
    if (!model || bare(model, type)) return void (el.style.cssText = 'display:none');
    const variant = viewportVariant();
    el.style.cssText = reserveStyle(maxWidth(type), slotSize(type, variant, c.s));
    const src = type === 'header' && headerSrc(variant);
    if (src) el.appendChild(image(src));
  };
  /** The header creative has been asked for early (or need not be: startHeader ran). */
  let started = false;
  /**
   * Requests the header creative once, when the page first shows a banner (below) or at once when
   * the snippet runs after the page was parsed (a tag manager). Before the viewport meta is parsed
   * a phone reports a 980 px layout viewport: its screen width is what the page will have (on a
   * desktop the window is never wider than the screen).
   */
  const startHeader = () => {
    if (started) return;
    started = true;
    const src = headerSrc(variantFor(Math.min(innerWidth, screen.width)));
    if (src) early = [src, image(src)];
  };
  if (document.readyState !== 'loading') startHeader();
  // The framework component form, <div data-dc-banner="header">: its box reserved by CSS alone
  // (the element is the framework's; the main script fills it once it is hydrated), per viewport
  // through a media query; hidden on a page of a model the dealer does not have, and a bare slot.
  const model = modelOf(new URL(location.href));
  addSheet(model ? bannerElementCss(c.s, maxWidth, '', (t) => bare(model, t)) : '[data-dc-banner]{display:none}');
  const dcBanners = () => (window as { dcBanners?: unknown }).dcBanners;
  /** The main script will not come (whenScriptMissing): the slots' empty boxes go. */
  let gaveUp = false;
  /**
   * A slot of a page whose main script will not come collapses once out of view, unless the main
   * script has taken it since or it shows the early header creative (a banner the shopper sees,
   * unlinked and uncounted: removing it would take a picture away and move the page for nothing).
   */
  const fold = (el: HTMLElement) => collapseOutOfView(el, () => !dcBanners() && !el.querySelector('img')?.naturalWidth);
  whenScriptMissing(
    () => !!dcBanners(),
    (reason) => {
      gaveUp = true;
      console.warn(`dc-banners: ${reason}; empty boxes collapse out of view`);
      document.querySelectorAll<HTMLElement>(SLOT_SELECTOR).forEach(fold);
    },
  );
  /** Reserves slots the snippet made (none when the main script has taken over: it binds them); once given up, they collapse when out of view. */
  const reserveAll = (slots: HTMLElement[]) => void (dcBanners() || slots.forEach((el) => (reserve(el), gaveUp && fold(el))));
  /** A text node's slots, reserved. */
  const make = (t: Text) => void (dcBanners() || reserveAll(slotsFor(t, reserveAll)));
  /** Makes a text node's slots now, or, in markup a framework has yet to hydrate, veils it and makes them once hydrated. */
  const take = (t: Text) =>
    deferText(t, () => {
      try {
        make(t);
      } catch {
        /* never throw into the host page */
      }
    })
      ? veil(t, c.s)
      : make(t);
  new MutationObserver((records, observer) => {
    try {
      if (dcBanners()) return observer.disconnect(); // the main script has taken over
      // Text the parser appends to a node it added in an earlier chunk (the rest of a split
      // shortcode) is a characterData record; once parsed, only the rest of a withheld shortcode
      // is (the parser may append it and finish in one task), the others are the page's own updates.
      const texts = records.flatMap((r) => (r.type === 'characterData' && (document.readyState === 'loading' || isHeld(r.target)) ? [r.target] : []));
      const found = [...texts, ...addedRoots(records)].flatMap((n) => (n.nodeType === 3 ? [n as Text] : shortcodeTexts(n)));
      // The page's first banner (a shortcode, even the start of one a network chunk splits or one
      // veiled until hydration, or a slot element) starts the header request: why not earlier, in
      // the module comment.
      if (!started && (found.some((t) => mayHoldShortcode(t.nodeValue)) || records.some((r) => [...r.addedNodes].some((n) => n.nodeType === 1 && (n as Element).matches(SLOT_SELECTOR))))) startHeader();
      found.forEach(take);
    } catch {
      /* never throw into the host page */
    }
  }).observe(document.documentElement, { childList: true, subtree: true, characterData: true });
} catch {
  /* never throw into the host page */
}
