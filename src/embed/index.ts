/**
 * dc-banners embed script (spec 01 §1, §4, §7, §9; DECISIONS 14-16), served per
 * dealer at /scripts/dc-banners-{dealerId}.js with its configuration injected by the server.
 *
 * Slots: each [dc-banner type="..."] shortcode (straight or curly quotes, any case) becomes a slot
 * element inserted beside its text node, whose text is blanked: nodes a framework (React) owns are
 * never removed or replaced. Shortcodes are found whenever they appear (a MutationObserver looking
 * only at added and changed nodes), and `<div class="dc-banner" data-dc-type="...">` elements (the
 * inline snippet's reserved slots, or a dealer's own markup) and `<div data-dc-banner="...">`
 * elements (the framework component form) are used as they are. A slot made from a shortcode (by
 * the snippet or here) is removed when its text node leaves the page; a dealer's own slot element
 * never is. In server-rendered markup a framework is about to hydrate (slots.ts HYDRATED_ROOTS)
 * nothing is changed until the framework has taken it: shortcodes stay veiled by CSS and
 * component elements stay empty until then (slots.ts deferText, afterHydration). At start-up the
 * page's slots and shortcodes are found in one task and taken one per task (later), so that no
 * task of ours holds a large page's main thread long; the inline snippet has reserved them before.
 *
 * What a slot shows is the server's decision: its page plans, injected with the configuration,
 * give each page model's slot models (the image endpoint answers the same model in X-Banner-Model);
 * a page model the dealer does not have hides the slots. The slot reserves the configured aspect
 * ratio (the viewport's variant read through a media query, which forces no layout); the creative
 * is shown whole inside it (object-fit: contain, the dealer's colour around it once it has
 * loaded: a late or missing creative leaves empty space, not a coloured block). A failed image (an
 * error, or no answer within IMAGE_TIMEOUT_MS) is swapped once for the server's placeholder; if
 * that fails too the box stays empty while in view and collapses once out of it.
 *
 * Counting (IAB/MRC viewable impression): the 1-second timer runs only while the creative has
 * loaded, at least 50 % of it is in view, the document is visible and no CSS hides it; once per
 * page view and slot type. A page view is the document at one (path, model, trim): it changes with
 * the page's path, model or trim, not with the hash or other query parameters, and every slot of
 * it shares its one random id. A framework that removes and re-creates a slot, or a listing
 * container the page swaps by AJAX on the same address, stays in the same page view: the new slot
 * shows the banner again but is not counted a second time (the server's impression key is the same
 * dealer, page view and slot type). Clicks (and middle-button clicks) go with sendBeacon; a click
 * whose impression the server has not answered yet (before the 1-second view, or with the impression's
 * request still on its way) carries the impression, which the server stores first. `dcBanners.conversion({ model, leadId })` names
 * the last banner click of this browser session (sessionStorage); the server counts it only within
 * CONVERSION_WINDOW_MS of that click, once per click and per leadId.
 * When the page has a `window.dataLayer` array (Google Tag Manager), each counted impression and
 * each click also pushes `dc_banner_view` / `dc_banner_click` with the model, slot type and
 * creative (dealer setting, default on). A slot whose model has no creative shows the server's
 * placeholder, or nothing at all when the dealer hides such slots (config.bare).
 * Beacons carry only the page's origin, path and model parameters; with Do-Not-Track or Global
 * Privacy Control (when the dealer respects them, the default), or while the page's consent
 * signals deny it (Google Consent Mode's analytics_storage, a TCF v2 or GPP CMP: slots.ts
 * consentDenied; README "Consent"), banners show but nothing is sent or stored in the browser; a
 * banner in view when consent is given is counted a second later. Images and beacons go to where
 * the script was loaded from (a dealer's reverse proxy: README "First-party install").
 * Exactly one global, `window.dcBanners`; nothing ever throws into the page.
 */
import { CONFIG_PLACEHOLDER, type EmbedConfig } from '../domain/embed-config';
import { assetUrl, isBare, mayHoldShortcode, maxWidth, planOf, SHORTCODE, slotSize, type Slot } from './shortcodes';
import { afterHydration, collapseOutOfView, consentDenied, deferText, IMG_STYLE, listenConsent, rotationBucket, shortcodeTexts, SLOT_SELECTOR, slotsFor, slotTypeOf, viewportVariant, type MadeSlot } from './slots';
import { reserveStyle } from '../domain/slot-css';
import { pathSegments, privacySafeUrl } from '../domain/page-url';
import { inventoryLink, KEPT_PARAMS, pageModel as modelOf, TRIM_PARAM } from './provider';
import { modelKey } from '../domain/model-keys';
import { IMAGE_TIMEOUT_MS, SCRIPT_URL_WATCH_MS } from '../domain/page-constants';

interface Banner {
  el: MadeSlot;
  type: Slot;
  /** Key of the page view the banner last rendered for: path, model and trim ('' or none: to render). */
  view?: string;
  /** Random id of that page view (pageView), sent with its impression, click and conversion. */
  pv: string;
  model: string;
  /** The image element showing the creative: its URL's query names the creative in beacons. */
  img?: HTMLImageElement;
  /** The creative (or its placeholder) has been drawn (none: not yet). */
  loaded?: boolean;
  /** At least 50 % of the slot is in the viewport (none: not known yet). */
  inView?: boolean;
  observer?: IntersectionObserver;
  timer?: ReturnType<typeof setTimeout>;
}

/** What the last banner click left in sessionStorage for conversion attribution. */
interface LastClick {
  model: string;
  type: Slot;
  pv: string;
}

const LAST_CLICK_KEY = 'dcb_c';

const w = window as unknown as { dcBanners?: unknown };
const raw: unknown = CONFIG_PLACEHOLDER;
// Once per page, and only configured (a string: served unprocessed).
if (!w.dcBanners && typeof raw !== 'string') start(raw as EmbedConfig);

/** Takes the page's slots and shortcodes over and sets `window.dcBanners`. */
function start(config: EmbedConfig) {
  // A first-party install (README "First-party install"): the dealer's own site serves the script
  // through a reverse proxy (say /dcb/scripts/dc-banners-{id}.js) and the images and beacons go the
  // same way: the base is the tag's data-dc-base (a script served under another name), else the
  // part of its src before /scripts/dc-banners-, else the configured origin (PUBLIC_ORIGIN; also
  // when the script runs without its own tag).
  const tag = document.currentScript as HTMLScriptElement | null;
  config.apiOrigin = tag?.dataset.dcBase ?? /^(.+)\/scripts\/dc-banners-/.exec(tag?.src ?? '')?.[1] ?? config.apiOrigin;
  listenConsent();
  /**
   * Nothing is sent or stored now: Do-Not-Track or Global Privacy Control when the dealer respects
   * them, or the page's consent signals deny it (slots.ts consentDenied; asked at each beacon, so a
   * CMP's later answer applies from then on). Banners show whatever it says.
   */
  const mute = () => consentDenied(config.respectDnt);
  /** The session's rotation bucket: which creative of a rotation this shopper sees. */
  const bucket = rotationBucket(mute);
  /** The slot elements taken (take), one banner each; a slot made from a shortcode knows its text node (MadeSlot). */
  const banners: Banner[] = [];
  let lastUrl = location.href;
  /** The document's current page view: its key (origin and path, model key, trim) and random id. */
  let view = { key: '', id: '' };
  /**
   * `${pv} ${slot type}` of the impressions sent (or given up) in this document: one per page view
   * and slot type; and, as `+${pv} ${slot type}`, those the server has answered (accepted or refused).
   */
  const counted = new Set<string>();
  const isCounted = (b: Pick<Banner, 'pv' | 'type'>) => counted.has(`${b.pv} ${b.type}`);

  const safe =
    <A extends unknown[]>(fn: (...a: A) => void) =>
    (...a: A) => {
      try {
        fn(...a);
      } catch {
        /* never throw into the host page */
      }
    };

  /**
   * The id of the page view `key` (origin and path, model key, trim): the current one's while the
   * key is the same, whatever slots came and went, else a new random id (16 hex characters;
   * getRandomValues works outside secure contexts too).
   */
  const pageView = (key: string) =>
    view.key === key ? view.id : (view = { key, id: Array.from(crypto.getRandomValues(new Uint8Array(8)), (x) => x.toString(16).padStart(2, '0')).join('') }).id;

  /**
   * Sends one event of a banner `b` (for a conversion, the last click's): its slot type, model, page
   * view and, for impressions and clicks, its image URL, from which the server knows the creative shown
   * (after a failed image, the placeholder's). Clicks use sendBeacon (it survives the
   * navigation that follows); the rest use a keepalive fetch, retried up to twice, 1-3 s apart,
   * when the server answers 503 (its buffer is full or behind, or it is restarting). Its callers
   * send nothing while muted (countable, recordClick, conversion).
   */
  const send = (event: string, b: Pick<Banner, 'type' | 'pv' | 'img' | 'model'>, leadId?: string) => {
    const answered = `+${b.pv} ${b.type}`;
    // A click whose impression has no answer yet brings it (trackBodySchema `imp`): two requests
    // may reach the server in either order, and it counts a click only after its impression.
    const imp = event === 'click' && !counted.has(answered) ? 1 : undefined;
    const body = JSON.stringify({ dealerId: config.dealerId, event, type: b.type, model: b.model, pv: b.pv, asset: b.img?.src, leadId, imp, url: privacySafeUrl(location.href, KEPT_PARAMS) });
    const url = `${config.apiOrigin}/api/analytics/track`;
    // A string body goes as text/plain;charset=UTF-8 (sendBeacon and fetch alike): no CORS preflight.
    if (event === 'click' && navigator.sendBeacon(url, body)) return;
    const attempt = (retries: number) =>
      fetch(url, { method: 'POST', body, keepalive: true, credentials: 'omit' })
        .then((r) => {
          if (event === 'impression' && r.status !== 503) counted.add(answered);
          if (r.status === 503 && retries) setTimeout(() => attempt(retries - 1), 1000 + Math.random() * 2000);
          // A refusal (403, 404, 429) names its reason and the dealer setting or step that changes
          // it (tracking/intake.ts refusalHint): told to the dealer's developer in the console, once
          // per reason (any failure to read it ends in the catch below).
          else if (r.status > 399) return r.json().then(({ error: e }: { error: { message: string; hint?: string } }) => e.hint && warn(`page not counted (${r.status}: ${e.message}); to change: ${e.hint}`));
        })
        .catch(() => undefined);
    attempt(2);
  };

  /**
   * Pushes `dc_banner_${event}` ('view' with each impression counted, 'click' with each click) to
   * the page's own `window.dataLayer` (Google Tag Manager) when it is an array and the dealer has
   * not turned this off; never creates one; called only with a beacon sent (never muted). It names the slot's model and
   * type and the creative, read from the image's resource timing entry (the server's Server-Timing
   * `creative`, as X-Banner-Creative; undefined when the browser kept no entry, e.g. a full timing buffer).
   */
  const push = safe((event: string, b: Banner) => {
    const layer = (window as { dataLayer?: unknown }).dataLayer;
    if (!config.dataLayer || !Array.isArray(layer)) return;
    const entry = b.img && (performance.getEntriesByName(b.img.currentSrc || b.img.src)[0] as PerformanceResourceTiming | undefined);
    layer.push({ event: `dc_banner_${event}`, dc_model: b.model, dc_slot: b.type, dc_creative: entry?.serverTiming?.find((t) => t.name === 'creative')?.description });
  });

  /** The console warnings given on this page (each once). */
  const warned = new Set<string>();
  const warn = (text: string) => {
    if (!warned.has(text)) console.warn(`dc-banners: ${text}`);
    warned.add(text);
  };

  /** False when CSS hides the element (display, visibility or opacity 0 on it or an ancestor). */
  const cssVisible = (el: Element) => el.checkVisibility?.({ checkOpacity: true, checkVisibilityCSS: true }) ?? true;

  /** The impression may be timed: muted, it waits (re-evaluated by checkUrl) until consent is given. */
  const countable = (b: Banner) => b.loaded && b.inView && !isCounted(b) && !mute() && document.visibilityState === 'visible' && cssVisible(b.el);

  const stop = (b: Banner) => {
    clearTimeout(b.timer);
    b.timer = undefined;
  };

  /** The banner's impression is sent (or needs no more watching). */
  const settle = (b: Banner) => {
    counted.add(`${b.pv} ${b.type}`);
    stop(b);
    b.observer?.disconnect();
  };

  /** Starts the 1-second viewability timer when every condition holds, stops it when one fails. */
  const evaluate = (b: Banner) => {
    if (!countable(b)) return stop(b);
    b.timer ??= setTimeout(
      safe(() => {
        b.timer = undefined;
        if (!countable(b)) return;
        settle(b);
        send('impression', b);
        push('view', b);
      }),
      1000,
    );
  };

  const observe = (b: Banner) => {
    b.observer?.disconnect();
    b.inView = false;
    b.observer = new IntersectionObserver(
      safe((entries: IntersectionObserverEntry[]) => {
        // The latest entry; a ratio above 0 is an intersecting target's (the spec zeroes the rest).
        b.inView = entries[entries.length - 1]!.intersectionRatio >= 0.5;
        evaluate(b);
      }),
      { threshold: [0, 0.5, 1] },
    );
    b.observer.observe(b.el);
  };

  const hide = (b: Banner) => {
    b.el.style.display = 'none';
    b.observer?.disconnect();
    stop(b);
    b.view = '';
  };

  /**
   * A slot whose creative and placeholder both failed collapses (hide) as soon as it is out of the
   * viewport: at once below the fold, else when the shopper scrolls it away (the browser's scroll
   * anchoring keeps what is on screen in place), so the empty box never shifts what is in view.
   */
  const collapse = (b: Banner, img: HTMLImageElement) => {
    warn(`no ${b.type} banner image from ${config.apiOrigin} (blocked or no answer); its box collapses when out of view`);
    // Unless re-rendered since (a new page view tries again).
    collapseOutOfView(b.el, () => b.img === img, () => hide(b));
  };

  const recordClick = (b: Banner) => {
    if (mute()) return; // nothing sent or stored, and the impression left to a later consent
    if (!isCounted(b)) {
      // A click proves the banner was seen: if the 1-second view had not completed, the click
      // beacon brings the impression (send: imp), because the server counts a click only after
      // its page view's impression.
      settle(b);
      push('view', b);
    }
    send('click', b);
    push('click', b);
    try {
      sessionStorage[LAST_CLICK_KEY] = JSON.stringify({ model: b.model, type: b.type, pv: b.pv } satisfies LastClick);
    } catch {
      /* storage may be blocked */
    }
  };

  const render = safe((b: Banner) => {
    const url = new URL(location.href);
    const pageModel = modelOf(url, pathSegments(url))?.trim();
    // The server's plan for the page's model; a model it does not know hides the slot, and so
    // does a slot without a creative when the dealer hides those (config.bare).
    const plan = pageModel ? planOf(config, pageModel) : null;
    if (!pageModel || !plan || isBare(config.bare, pageModel, b.type)) return hide(b);
    const model = plan[b.type === 'upsell' ? 1 : 0];
    const trim = url.searchParams.get(TRIM_PARAM)?.trim();
    const key = `${location.origin}${location.pathname}|${modelKey(pageModel)}|${trim ?? ''}`;
    if (key === b.view && b.el.style.display !== 'none') return;
    b.view = key;
    b.pv = pageView(key);
    b.model = model;
    b.loaded = false;
    stop(b);
    const variant = viewportVariant();
    const size = slotSize(b.type, variant, config.sizes);
    const a = document.createElement('a');
    a.href = inventoryLink(location.origin, model);
    a.style.cssText = 'display:block;width:100%;height:100%';
    const onClick = safe((e: MouseEvent) => {
      if (e.type === 'click' || e.button === 1) recordClick(b);
    });
    a.addEventListener('click', onClick);
    a.addEventListener('auxclick', onClick);
    const img = document.createElement('img');
    img.alt = `${model} ${b.type === 'header' ? 'offers' : 'special'}`;
    img.decoding = 'async';
    [img.width, img.height] = size;
    img.style.cssText = IMG_STYLE;
    const src = assetUrl(config, pageModel, b.type, variant, trim, bucket);
    b.img = img;
    /** The timer that gives up an image with no answer (fail below). */
    let hung: ReturnType<typeof setTimeout>;
    img.addEventListener(
      'load',
      safe(() => {
        clearTimeout(hung);
        // Not an image this banner has since replaced (a model change while it loaded).
        if (!img.isConnected) return;
        b.el.style.background = config.background;
        b.loaded = true;
        evaluate(b);
      }),
    );
    // A failed creative is swapped once for the server's placeholder (spec 02 §4); if that fails too
    // (our server is unreachable, blocked or refusing) the reserved box stays empty while in view
    // and collapses once out of it (collapse): nothing in view shifts, nothing is counted. An image
    // with neither answer IMAGE_TIMEOUT_MS after it was asked for (a server or proxy that hangs)
    // has failed: changing its src drops the hung request.
    const fail = safe(() => {
      clearTimeout(hung);
      if (b.img !== img) return; // replaced since (a model change)
      if (img.src.endsWith('&placeholder=1')) return void ((img.style.visibility = 'hidden'), collapse(b, img));
      img.removeAttribute('srcset');
      img.src = `${src}&placeholder=1`;
      hung = setTimeout(fail, IMAGE_TIMEOUT_MS);
    });
    img.addEventListener('error', fail);
    img.srcset = `${src} 1x, ${src}&scale=2 2x`;
    img.src = src;
    hung = setTimeout(fail, IMAGE_TIMEOUT_MS);
    a.appendChild(img);
    b.el.replaceChildren(a);
    b.el.style.cssText = reserveStyle(maxWidth(b.type), size);
    observe(b);
  });

  /**
   * Makes a slot element a banner (once); an element of the page's markup once its framework has
   * hydrated it (slots.ts afterHydration). A slot made from a shortcode is ours, made after its
   * text was hydrated: at once.
   */
  const bind = (el: MadeSlot) => (el.dcText ? take(el) : afterHydration(el, safe(() => take(el))));
  const take = (el: MadeSlot) => {
    const type = slotTypeOf(el) as Slot;
    // A slot type is one the configuration sizes (the server's slot registry), own keys only.
    if (banners.some((b) => b.el === el) || !{}.hasOwnProperty.call(config.sizes, type)) return;
    // A slot made from a shortcode (by the snippet or here) goes when a framework removes its text
    // node (prune); a dealer's own slot element is never removed.
    const b: Banner = { el, type, pv: '', model: '' };
    banners.push(b);
    render(b);
  };

  /**
   * Takes the shortcodes of a text node (slots.ts: blanked, slots inserted beside it); in markup a
   * framework has yet to hydrate, once it has (slots.ts deferText; the snippet veils it
   * meanwhile). A node whose text a framework sets again is blanked again but gets no second set
   * of slots.
   */
  const bindAll = (slots: HTMLElement[]) => slots.forEach(bind);
  const takeText = (node: Text): unknown => {
    if (deferText(node, safe(() => takeText(node)))) return;
    if (!banners.some((b) => b.el.dcText === node)) return slotsFor(node, bindAll).forEach(bind);
    if (mayHoldShortcode(node.nodeValue)) node.nodeValue = node.nodeValue!.replace(SHORTCODE, '');
  };

  /**
   * Work of the start-up, one item per task, in order (later): each task is a message the script
   * posts to itself through a MessageChannel, which runs as soon as the page's tasks already queued
   * have and, unlike a timer, never waits for a throttled or paused clock. Between two of them the
   * browser may paint or handle input: on a large page no task of ours holds the main thread long.
   * Until its turn a slot keeps the box (or the display:none) the inline snippet gave it before the
   * first paint: the snippet has made the slots of the shortcodes parsed so far (and veiled those
   * awaiting hydration); what the page adds once this script runs is taken at once, by the
   * MutationObserver below, before any paint.
   */
  const queue: Array<() => void> = [];
  const { port1, port2 } = new MessageChannel();
  // One message per item: a port delivers them in order, each in a task of its own.
  port1.onmessage = () => safe(queue.shift()!)();
  const later = (fn: () => void) => void (queue.push(fn), port2.postMessage(0));
  const now = (fn: () => void) => fn();

  /**
   * Finds slots and shortcodes in a subtree that was just added (never the whole page again), or,
   * at start-up, in the whole page; `each` runs what each one needs (at once, or one per task: later).
   */
  const scan = (root: Node, each = now) => {
    if (root.nodeType === 3) return takeText(root as Text);
    if (root.nodeType !== 1) return;
    const el = root as Element;
    if (el.matches(SLOT_SELECTOR)) return bind(el as HTMLElement);
    el.querySelectorAll<HTMLElement>(SLOT_SELECTOR).forEach((s) => each(() => bind(s)));
    shortcodeTexts(root).forEach((t) => each(() => takeText(t)));
  };

  /** Drops slots whose shortcode text node left the page (a framework re-rendered without it). */
  const prune = () => {
    for (let i = banners.length; i--; ) {
      const b = banners[i]!;
      if (b.el.dcText?.isConnected !== false) continue;
      banners.splice(i, 1);
      b.el.remove();
      hide(b);
    }
  };

  const refresh = safe(() => {
    lastUrl = location.href;
    prune();
    banners.forEach(render);
  });

  const checkUrl = safe(() => {
    if (location.href !== lastUrl) refresh();
    // CSS can hide or reveal a slot without any observer noticing: look again while one waits.
    banners.forEach(evaluate);
  });

  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    // checkUrl runs in a later task, once the new URL is in place.
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      setTimeout(checkUrl);
      return original.apply(this, args);
    };
  }
  addEventListener('popstate', checkUrl);
  document.addEventListener('visibilitychange', checkUrl);
  setInterval(checkUrl, SCRIPT_URL_WATCH_MS);

  new MutationObserver(
    safe((records: MutationRecord[]) => {
      for (const r of records) {
        if (r.type === 'characterData') takeText(r.target as Text);
        r.addedNodes.forEach((n) => scan(n));
      }
      if (records.some((r) => r.removedNodes.length)) prune();
    }),
  ).observe(document.documentElement, { childList: true, subtree: true, characterData: true });

  w.dcBanners = {
    refresh: safe(() => {
      scan(document.documentElement);
      refresh();
    }),
    // The server counts it only for a click of this page view made within CONVERSION_WINDOW_MS, once
    // per click and per leadId (so a reload or a second call changes nothing).
    conversion: safe((opts?: { model?: string; leadId?: string }) => {
      const last = mute() ? null : (JSON.parse(sessionStorage[LAST_CLICK_KEY] ?? 'null') as LastClick | null);
      if (last) send('conversion', { ...last, model: opts?.model ?? last.model }, opts?.leadId?.slice(0, 100));
    }),
  };

  // The page's slots and shortcodes: found in a task of their own, then taken one per task.
  later(() => scan(document.documentElement, later));
}
