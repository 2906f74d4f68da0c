/**
 * Shortcodes to slot elements, shared by the inline snippet (snippet.ts) and the main script
 * (index.ts): a text node's shortcodes are blanked and a `<div class="dc-banner"
 * data-dc-type="...">` per shortcode is inserted right after it. The text node itself is never
 * removed or replaced (a framework such as React may own it).
 *
 * Server-rendered markup a framework hydrates (HYDRATED_ROOTS) is never changed before the
 * framework has taken it: React compares the text it would render with the page's and, on any
 * difference, throws the server's markup away and renders the root again (error #418, a slower
 * first paint and largest paint). Until then its shortcodes are hidden and their box reserved by
 * CSS alone (veil), which changes no node.
 */
import { maxWidth, mayHoldShortcode, SHORTCODE, shortcodeTypes, slotSize, unfinishedShortcodeAt } from './shortcodes';
import { HYDRATION_WAIT_MS, MOBILE_BREAKPOINT_PX, ROTATION_BUCKETS, SCRIPT_GRACE_MS } from '../domain/page-constants';
import type { EmbedConfig } from '../domain/embed-config';
import { reserveStyle } from '../domain/slot-css';

/**
 * shortcodes.ts's variantFor for the viewport's width, read through a media query: on a mobile viewport
 * `innerWidth` makes the browser lay the page out first (a 30-60 ms stretch on a large page at 4x
 * CPU), a media query does not.
 */
export const viewportVariant = (): 'desktop' | 'mobile' => (matchMedia(`(max-width:${MOBILE_BREAKPOINT_PX}px)`).matches ? 'mobile' : 'desktop');

/** The creative inside its slot: the whole box, drawn at its own aspect ratio (letterboxed on the slot's colour, never stretched). */
export const IMG_STYLE = 'display:block;width:100%;height:100%;object-fit:contain;border:0';

/** A slot element made from a shortcode: `dcText` is the text node it was made from (a property, shared by the snippet and the main script). */
export type MadeSlot = HTMLElement & { dcText?: Text };

/**
 * The slot elements of a page: those made from shortcodes (by the snippet or the main script) or
 * written by the dealer as `<div class="dc-banner" data-dc-type="...">`, and the framework
 * component form `<div data-dc-banner="...">` (an element the framework renders empty; the tag
 * fills it once the framework has hydrated it and never touches the text around it).
 */
export const SLOT_SELECTOR = '.dc-banner[data-dc-type],[data-dc-banner]';

/** The slot type an element of SLOT_SELECTOR names, lower case ('' for none). */
export const slotTypeOf = (el: Element): string => (el.getAttribute('data-dc-type') ?? el.getAttribute('data-dc-banner') ?? '').toLowerCase();

/**
 * Collapses a slot element (`hide`, by default display:none) once it is out of the viewport: at
 * once when it is out already (below the fold), else when the shopper scrolls it away. An empty box
 * going never shifts what is in view: a box below the viewport moves only what is below it, and
 * the browser's scroll anchoring keeps what is on screen in place when a box above it goes. Boxes
 * go one per animation frame (collapseNext): two boxes above the viewport going in the same frame
 * move what lies between them by less than the scroll anchoring's correction, which Chrome counts
 * as a layout shift. `still` is asked at that moment: false (the slot shows something since)
 * leaves it as it is. Used by the main script for a slot whose images failed and by the snippet
 * for the slots of a main script that never took over (whenScriptMissing). Never throws into the page.
 */
export function collapseOutOfView(el: HTMLElement, still: () => boolean, hide: () => void = () => void (el.style.display = 'none')): void {
  const io = new IntersectionObserver(([e]) => {
    if (e!.isIntersecting) return;
    io.disconnect();
    if (collapsing.push([el, still, hide]) === 1) requestAnimationFrame(collapseNext);
  });
  io.observe(el);
}

/** Slots out of view waiting to collapse (collapseOutOfView), one per frame. */
const collapsing: Array<[HTMLElement, () => boolean, () => void]> = [];

/** Collapses the first waiting slot, the next one in the next frame. */
const collapseNext = () => {
  const [, still, hide] = collapsing.shift()!;
  try {
    if (still()) hide();
  } catch {
    /* never throw into the host page */
  }
  if (collapsing.length) requestAnimationFrame(collapseNext);
};

/** The main script's URL path as the Script page hands it out: /scripts/dc-banners-{dealerId}.js. */
const SCRIPT_PATH = /\/scripts\/dc-banners-[^/?#]+\.js/;

/**
 * Calls `giveUp(reason)` once when the main script will not take the page over (`taken` still
 * false then): at once when a `<script src=".../scripts/dc-banners-{id}.js">` fails to load (an ad
 * blocker, a Content-Security-Policy, our server down or refusing it; a resource error does not
 * bubble, so it is caught in the capture phase on window), else SCRIPT_GRACE_MS after the page's
 * load event (the script tag missing, or a script that loaded but never started). `reason` says
 * which, for the console.
 */
export function whenScriptMissing(taken: () => boolean, giveUp: (reason: string) => void): void {
  let done = false;
  const check = (reason: string) => void (done || taken() || ((done = true), giveUp(reason)));
  addEventListener(
    'error',
    (e) => {
      const src = (e.target as HTMLScriptElement | null)?.src;
      if (SCRIPT_PATH.test(src ?? '')) check(`${src} did not load (blocked, or its server is down)`);
    },
    true,
  );
  const wait = () => void setTimeout(() => check(`the banner script has not started ${SCRIPT_GRACE_MS / 1000} s after load (is its tag on the page?)`), SCRIPT_GRACE_MS);
  if (document.readyState === 'complete') wait();
  else addEventListener('load', wait, { once: true });
}

/**
 * Roots of markup a framework hydrates: React's `data-reactroot` (React 17 and before), Next.js's
 * `#__next`, Gatsby's `#___gatsby`, Nuxt's `#__nuxt`, Vue's `[data-server-rendered]`, and any
 * element the dealer marks `data-dc-hydrate` (the container a React 18/19 page passes to
 * hydrateRoot, or `<html>` for a framework that hydrates the whole document).
 */
export const HYDRATED_ROOTS = '[data-reactroot],#__next,#___gatsby,#__nuxt,[data-server-rendered],[data-dc-hydrate]';

/**
 * True while `el` lies in a region of HYDRATED_ROOTS that its framework has not hydrated yet: React
 * has not given it its fiber (set once it compared the element and its children, whether
 * hydrated or rendered afresh), Vue has not given it its vnode, Vue 2 has not removed the region's
 * `data-server-rendered`. False HYDRATION_WAIT_MS after the page's load event whatever happened
 * (a marked region that nothing hydrates still gets its banners).
 */
export function awaitingHydration(el: Element): boolean {
  if (!el.closest(HYDRATED_ROOTS) || '__vnode' in el || Object.keys(el).some((k) => k.startsWith('__reactFiber'))) return false;
  const loaded = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.loadEventEnd;
  return !loaded || performance.now() < loaded + HYDRATION_WAIT_MS;
}

/**
 * Calls `fn` at once unless `el` is awaiting hydration (awaitingHydration), else once it no longer
 * is (looked at every 50 ms; never if `el` leaves the page meanwhile: the framework replaced it).
 */
export function afterHydration(el: Element, fn: () => void): void {
  if (!awaitingHydration(el)) return fn();
  const poll = () => void (el.isConnected && (awaitingHydration(el) ? setTimeout(poll, 50) : fn()));
  setTimeout(poll, 50);
}

/**
 * Adds a style sheet of `css` to the document and returns what removes it. A constructed sheet
 * (document.adoptedStyleSheets): no node in the page, which a framework hydrating the whole
 * document would find, and no inline `<style>`, which a Content-Security-Policy without
 * 'unsafe-inline' in style-src refuses.
 */
export function addSheet(css: string): () => void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return () => void (document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet));
}

/** A text node whose shortcodes wait for hydration: `dcVeil` removes the CSS that hides them (veil). */
type VeiledText = Text & { dcVeil?: () => void };

/** A CSS selector of `el` alone from the nearest ancestor with an id (or the root): structural, so nothing is written on the element. */
const selectorOf = (el: Element): string => {
  const up = el.parentElement;
  return el.id ? `#${CSS.escape(el.id)}` : up ? `${selectorOf(up)}>:nth-child(${[...up.children].indexOf(el) + 1})` : ':root';
};

/**
 * Hides the shortcodes of `node` and reserves its first slot's box with CSS only (addSheet; no
 * node of the framework's markup changes): the element holding the text is made
 * invisible (its layout kept; words beside a shortcode in the same element show once the element
 * is hydrated), with no line height when it holds nothing but shortcodes, and the slot's box
 * (`sizes`, the viewport's variant) is its `::after`, where slotsFor later inserts the slot.
 * slotsFor removes the rule (`dcVeil`) in the same task as it inserts the slots, so no frame
 * shows both boxes or neither. Once per node.
 */
export function veil(node: VeiledText, sizes: EmbedConfig['sizes']): void {
  const parent = node.parentElement;
  const type = shortcodeTypes(node.nodeValue ?? '')[0];
  if (!parent || !type || node.dcVeil) return;
  const sel = selectorOf(parent);
  const remove = addSheet(`${sel}{visibility:hidden${parent.textContent!.replace(SHORTCODE, '').trim() ? '' : ';line-height:0'}}${sel}::after{content:"";${reserveStyle(maxWidth(type), slotSize(type, viewportVariant(), sizes))}}`);
  node.dcVeil = () => {
    node.dcVeil = undefined;
    remove();
  };
}

/**
 * For a text node with shortcodes in markup a framework has yet to hydrate (awaitingHydration of
 * its element): calls `then` once hydrated (afterHydration) and returns true. Else false: the
 * caller makes its slots now. The snippet veils the node meanwhile (veil); the main script,
 * which arrives after the first paint, finds it veiled already.
 */
export function deferText(node: Text, then: () => void): boolean {
  const parent = node.parentElement;
  if (!parent || !mayHoldShortcode(node.nodeValue) || !awaitingHydration(parent)) return false;
  afterHydration(parent, then);
  return true;
}

/**
 * A text node whose end the HTML parser delivered as the start of a shortcode: `dcHeld` is [the text
 * left on the page, the unfinished shortcode withheld] until the parser's next chunk completes it
 * (a property, shared by the snippet and the main script).
 */
type HeldText = Text & { dcHeld?: [string, string] };

/**
 * True when `node` ends in a shortcode start slotsFor withholds: text the parser appends to it is
 * the rest of that shortcode, whatever the document's readyState (the parser may append the last
 * chunk and finish the document in one task, before any observer runs).
 */
export const isHeld = (node: Node): boolean => !!(node as HeldText).dcHeld;

/**
 * Blanks the shortcodes of `node` and inserts one slot element after it per shortcode, in order,
 * each remembering `node` (MadeSlot). Returns the new slots; [] when the text holds none or is
 * script, style or form text.
 *
 * Split across parser chunks: while the document is loading, an unfinished shortcode at the end
 * of the text (shortcodes.ts unfinishedShortcodeAt) is withheld from the page (never painted raw)
 * and joined to what the parser adds next: the same text node when the parser appends to it, or
 * the next text node after the node's slots when it starts a new one (the caller hands such a
 * node back here: isHeld). When the document has been parsed (DOMContentLoaded) a start still
 * withheld is joined or put back, and the slots that makes go to `late` (the caller's own handling,
 * in that same task, so no frame shows them unreserved).
 */
export function slotsFor(node: HeldText, late: (slots: HTMLElement[]) => void): HTMLElement[] {
  const parent = node.parentNode;
  if (!parent || /^(SCRIPT|STYLE|TEXTAREA|NOSCRIPT)$/.test(parent.nodeName)) return [];
  let text = node.nodeValue ?? '';
  // The withheld start of a shortcode: in this node (the parser appended to it) or in the text
  // node before this one's slot siblings (the parser started a new node after them).
  let from: Node | null = node;
  if (!node.dcHeld) for (from = node.previousSibling; from && (from as MadeSlot).dcText; ) from = from.previousSibling;
  const held = (from as HeldText | null)?.dcHeld;
  if (held && from!.nodeValue!.startsWith(held[0])) {
    (from as HeldText).dcHeld = undefined;
    text = from === node ? held[0] + held[1] + text.slice(held[0].length) : held[1] + text;
  }
  const types = mayHoldShortcode(text) ? shortcodeTypes(text) : [];
  let shown = types.length ? text.replace(SHORTCODE, '') : text;
  const cut = document.readyState === 'loading' ? unfinishedShortcodeAt(shown) : -1;
  if (cut >= 0) {
    node.dcHeld = [shown.slice(0, cut), shown.slice(cut)];
    shown = node.dcHeld[0];
    document.addEventListener('DOMContentLoaded', () => void (node.dcHeld && late(slotsFor(node, late))), { once: true });
  }
  if (shown !== node.nodeValue) node.nodeValue = shown;
  let after: Node = node;
  const slots = types.map((type) => {
    const el: MadeSlot = document.createElement('div');
    el.dcText = node;
    el.className = 'dc-banner';
    el.setAttribute('data-dc-type', type);
    parent.insertBefore(el, after.nextSibling);
    return (after = el);
  });
  (node as VeiledText).dcVeil?.(); // the slots take the veil's place, in this same task
  return slots;
}

/**
 * The text nodes under `root` (an element) that may hold shortcodes (mayHoldShortcode), in
 * document order: none when its textContent holds none, else those of the text nodes holding a `[`
 * (a native XPath query: no JavaScript runs per text node, where a TreeWalker ran for every one of
 * a large page's) that mayHoldShortcode accepts. The query asks for `[` alone: XPath's contains is
 * case-sensitive, and lower-casing every text node in it (translate) costs more than a TreeWalker.
 */
export function shortcodeTexts(root: Node): Text[] {
  const hits: Text[] = [];
  if (mayHoldShortcode(root.textContent)) {
    const found = document.evaluate(".//text()[contains(.,'[')]", root, null, 7 /* ORDERED_NODE_SNAPSHOT_TYPE */, null);
    for (let i = 0, n; i < found.snapshotLength; ) if (mayHoldShortcode((n = found.snapshotItem(i++) as Text).nodeValue)) hits.push(n);
  }
  return hits;
}

/**
 * The added nodes of a batch of mutation records that need looking at: every added text node, and
 * the added elements with children that were not all added in the same batch (a subtree inserted
 * whole, by innerHTML or appendChild). The parser adds an element and then each of its children,
 * all in the batch (its first and last child among them): walking that element's subtree as well
 * would read the same text once per ancestor.
 */
export function addedRoots(records: MutationRecord[]): Node[] {
  const added = new Set<Node>();
  for (const r of records) r.addedNodes.forEach((n) => added.add(n));
  return [...added].filter((n) => n.nodeType === 3 || (n.nodeType === 1 && n.firstChild && !(added.has(n.firstChild) && added.has(n.lastChild!))));
}

/**
 * This browser session's rotation bucket (A/B): a whole number below ROTATION_BUCKETS,
 * drawn once and kept in sessionStorage, so a shopper sees the same creative on every page of a
 * visit (and the browser cache serves it); the server shows `rotation[r % n]`. 0 when `quiet()`
 * says nothing may be stored (Do-Not-Track or Global Privacy Control, a consent denial:
 * consentDenied; nothing is counted either), when it throws, or when storage is blocked, so the
 * inline snippet and the main script ask for the same URL (a CMP that answers between the two
 * can still make them differ on the first page of a session: the header then downloads twice).
 */
export function rotationBucket(quiet: () => boolean): number {
  try {
    return quiet() ? 0 : +(sessionStorage[BUCKET_KEY] ??= (Math.random() * ROTATION_BUCKETS) | 0);
  } catch {
    return 0;
  }
}
const BUCKET_KEY = 'dcb_r';

/** The page's consent APIs as the embed reads them (README "Consent"). */
type ConsentWindow = {
  dataLayer?: unknown;
  __tcfapi?: (command: string, version: number, callback: (data: { gdprApplies?: boolean; purpose: { consents: Record<number, boolean> } }, ok: boolean) => void) => void;
  __gpp?: (command: string, callback: (event: unknown) => void) => void;
};

/**
 * The last answers of the page's consent management platform, by API: `t` TCF v2 (`__tcfapi`),
 * `g` GPP (`__gpp`); truthy = counting denied, falsy = allowed or no such API on the page.
 */
const cmp: { t?: unknown; g?: boolean } = {};

/**
 * Listens to the page's CMP, if it has one (README "Consent"; the snippet and the main script each
 * listen for themselves): TCF v2 (`__tcfapi('addEventListener', 2, ...)`) denies while the GDPR
 * applies and the shopper has not consented to purposes 1 (store or access information on a
 * device) and 7 (measure advertising performance), and until the CMP's first answer (a stub
 * queues the call and answers once its CMP has loaded); GPP (`__gpp('addEventListener', ...)`)
 * denies once one of its parsed sections (usnat, usca, usva, ...) records an opt-out of sale,
 * sharing or targeted advertising (`SaleOptOut`, `SharingOptOut`, `TargetedAdvertisingOptOut`: 1;
 * the notices and the other fields end otherwise). Answers come whenever the CMP gives them (at
 * once from a loaded CMP): nothing waits for them. Never throws, into the page or into the CMP.
 */
export function listenConsent(): void {
  const w = window as ConsentWindow;
  try {
    cmp.t = w.__tcfapi;
    w.__tcfapi?.('addEventListener', 2, (d, ok) => {
      try {
        if (ok) cmp.t = d.gdprApplies && !(d.purpose.consents[1] && d.purpose.consents[7]);
      } catch {
        cmp.t = 1; // TC data without purposes where the GDPR applies: no consent to read
      }
    });
    w.__gpp?.('addEventListener', (e) => {
      try {
        cmp.g = /OptOut":1/.test(JSON.stringify(e));
      } catch {
        /* an event that is not JSON: the last answer stands */
      }
    });
  } catch {
    /* a global of that name that is no CMP's API: no answer comes (TCF: still denied) */
  }
}

/**
 * True when nothing may be sent or stored now (README "Consent"): Google Consent Mode's
 * `analytics_storage` is 'denied' by the last `consent` command in `window.dataLayer` that names
 * it (gtag('consent', 'default' | 'update', {...}) pushes ['consent', 'default', {...}]); TCF v2
 * denies (listenConsent); or, when `optOuts` (the dealer respects Do-Not-Track / Global Privacy
 * Control), the browser sends either signal or GPP records an opt-out. Read synchronously at each
 * call, so a later grant or denial applies from the next beacon on. @throws TypeError when the
 * page's `dataLayer` is set but not iterable (callers treat that as a denial).
 */
export function consentDenied(optOuts: boolean): boolean {
  let state: unknown;
  // A dataLayer that is not iterable throws: the callers then send and store nothing.
  for (const e of ((window as ConsentWindow).dataLayer ?? []) as Array<ArrayLike<{ analytics_storage?: string } | string> | null>) if (e?.[0] == 'consent') state = (e[2] as { analytics_storage?: string } | undefined)?.analytics_storage ?? state;
  return state == 'denied' || !!cmp.t || (optOuts && (optedOut() || !!cmp.g));
}

/** True when the browser signals Do-Not-Track or Global Privacy Control. */
export const optedOut = (): boolean => navigator.doNotTrack == '1' || !!(navigator as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl;
