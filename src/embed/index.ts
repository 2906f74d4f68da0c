/**
 * dc-banners embed script (spec 01 §1, §4, §7, §9; DECISIONS 14-16), served per dealer at
 * /scripts/dc-banners-{dealerId}.js with its configuration injected by the server.
 *
 * On a dealer's new-vehicle search page it replaces each [dc-banner type="..."] shortcode once
 * with the banner of the model in the page URL, linked to the dealer's inventory for that model
 * (the upsell slot shows and links the upsell target). Which model each slot shows is the server's
 * decision (its page plans, injected with the configuration; the image endpoint answers the same
 * model in X-Banner-Model); a page model the dealer does not have hides the slots. Space is
 * reserved from the slot's aspect ratio before the image loads, and the creative is shown whole
 * inside it (object-fit: contain on the dealer's branding colour). Viewable impressions (>= 50 % in view for >= 1 s, once per banner
 * per page view) and clicks are sent with sendBeacon (or keepalive fetch), each naming a random
 * page-view id so the server counts a click only for a banner that page view rendered (a click
 * before the 1-second view completes sends the impression first). URL changes (polled
 * every 500 ms, plus history navigation) re-render the banners; without a model they are hidden.
 * Exactly one global, `window.dcBanners`; nothing ever throws into the host page. Do-Not-Track is
 * not consulted: these are the dealer's own first-party ad metrics, no personal data is sent.
 */
import { CONFIG_PLACEHOLDER, type EmbedConfig } from './config';
import { assetUrl, findShortcodes, maxWidth, slotSize, variantFor, type Slot } from './shortcodes';
import { inventoryUrl, modelFromPageUrl, trimFromPageUrl } from '../domain/provider-urls';
import { modelKey } from '../domain/model-keys';
import { SCRIPT_URL_WATCH_MS } from '../domain/constants';

interface Banner {
  el: HTMLElement;
  type: Slot;
  /** Key of the page view the banner last rendered for (URL + model). */
  view: string;
  /** Random id of that page view, sent with its impression and click (issue 11 §5). */
  pv: string;
  counted: boolean;
  observer?: IntersectionObserver;
  timer?: ReturnType<typeof setTimeout>;
  model: string;
}

const LAST_CLICK_KEY = 'dcb_last_click';

(function () {
  const w = window as unknown as { dcBanners?: unknown };
  if (w.dcBanners) return;
  const raw: unknown = CONFIG_PLACEHOLDER;
  if (typeof raw === 'string') return; // not configured (served unprocessed)
  const config = raw as EmbedConfig;
  const banners: Banner[] = [];
  let lastUrl = '';

  const safe =
    <A extends unknown[]>(fn: (...a: A) => void) =>
    (...a: A) => {
      try {
        fn(...a);
      } catch {
        /* never throw into the host page */
      }
    };

  /** A random page-view id (16 hex characters; getRandomValues works outside secure contexts too). */
  const newPageView = () => Array.from(crypto.getRandomValues(new Uint8Array(8)), (x) => x.toString(16).padStart(2, '0')).join('');

  const send = (event: string, type: string, model: string, pv?: string) => {
    const body = JSON.stringify({ dealerId: config.dealerId, event, type, model, pv, timestamp: new Date().toISOString(), url: location.href });
    const url = `${config.apiOrigin}/api/analytics/track`;
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(url, new Blob([body], { type: 'text/plain' }))) return;
    } catch {
      /* fall through to fetch */
    }
    fetch(url, { method: 'POST', body, keepalive: true, credentials: 'omit', headers: { 'Content-Type': 'text/plain' } }).catch(() => undefined);
  };

  const watchViewability = (b: Banner) => {
    b.observer?.disconnect();
    if (b.counted || typeof IntersectionObserver === 'undefined') return;
    b.observer = new IntersectionObserver(
      safe((entries: IntersectionObserverEntry[]) => {
        const visible = entries.some((e) => e.isIntersecting && e.intersectionRatio >= 0.5);
        if (visible && !b.timer && !b.counted) {
          b.timer = setTimeout(
            safe(() => {
              b.timer = undefined;
              if (b.counted) return;
              b.counted = true;
              b.observer?.disconnect();
              send('impression', b.type, b.model, b.pv);
            }),
            1000,
          );
        } else if (!visible && b.timer) {
          clearTimeout(b.timer);
          b.timer = undefined;
        }
      }),
      { threshold: [0, 0.5, 1] },
    );
    b.observer.observe(b.el);
  };

  const render = (b: Banner) => {
    const pageModel = modelFromPageUrl(config.provider, location.href);
    const key = pageModel ? modelKey(pageModel) : '';
    // The server's plan for the page's model; a model it does not know hides the slot.
    const plan = Object.hasOwn(config.plans, key) ? config.plans[key] : undefined;
    if (!pageModel || !plan) {
      b.el.style.display = 'none';
      b.observer?.disconnect();
      if (b.timer) clearTimeout(b.timer);
      b.timer = undefined;
      b.view = '';
      return;
    }
    const model = config.models[b.type === 'upsell' ? plan[1] : plan[0]] ?? pageModel;
    const view = `${location.href}|${model}`;
    if (view === b.view && b.el.style.display !== 'none') return;
    b.view = view;
    b.pv = newPageView();
    b.model = model;
    b.counted = false;
    if (b.timer) clearTimeout(b.timer);
    b.timer = undefined;
    const variant = variantFor(window.innerWidth);
    const size = slotSize(b.type, variant, config.sizes);
    const a = document.createElement('a');
    a.href = inventoryUrl(config.provider, location.origin, model);
    a.style.cssText = 'display:block;width:100%;height:100%';
    a.addEventListener(
      'click',
      safe(() => {
        // A click proves the banner was seen: its impression goes first if the 1-second view
        // had not completed, because the server counts a click only after its page view's impression.
        if (!b.counted) {
          b.counted = true;
          if (b.timer) clearTimeout(b.timer);
          b.observer?.disconnect();
          send('impression', b.type, model, b.pv);
        }
        send('click', b.type, model, b.pv);
        try {
          sessionStorage.setItem(LAST_CLICK_KEY, JSON.stringify({ model, type: b.type, time: Date.now() }));
        } catch {
          /* storage may be blocked */
        }
      }),
    );
    const img = document.createElement('img');
    img.alt = `${model} ${b.type === 'header' ? 'offers' : 'special'}`;
    img.decoding = 'async';
    img.width = size.width;
    img.height = size.height;
    // The creative fills the reserved box at its own aspect ratio (letterboxed, never stretched).
    img.style.cssText = 'display:block;width:100%;height:100%;object-fit:contain;border:0';
    const src = assetUrl(config, pageModel, b.type, variant, trimFromPageUrl(config.provider, location.href));
    img.srcset = `${src} 1x, ${src}&scale=2 2x`;
    img.src = src;
    a.appendChild(img);
    b.el.replaceChildren(a);
    b.el.style.cssText = `display:block;width:100%;max-width:${maxWidth(b.type)}px;aspect-ratio:${size.width}/${size.height};margin:0 auto;overflow:hidden;background:${config.background}`;
    watchViewability(b);
  };

  const scan = () => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const hits: Text[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (parent && !/^(SCRIPT|STYLE|TEXTAREA)$/.test(parent.tagName) && n.nodeValue?.includes('[dc-banner')) hits.push(n as Text);
    }
    for (const node of hits) {
      const text = node.nodeValue ?? '';
      const codes = findShortcodes(text);
      if (!codes.length) continue;
      const frag = document.createDocumentFragment();
      let pos = 0;
      for (const c of codes) {
        frag.appendChild(document.createTextNode(text.slice(pos, c.index)));
        const el = document.createElement('div');
        el.className = 'dc-banner';
        el.setAttribute('data-dc-type', c.type);
        frag.appendChild(el);
        const b: Banner = { el, type: c.type, view: '', pv: '', counted: false, model: '' };
        banners.push(b);
        pos = c.index + c.length;
      }
      frag.appendChild(document.createTextNode(text.slice(pos)));
      node.parentNode?.replaceChild(frag, node);
    }
  };

  const refresh = safe(() => {
    lastUrl = location.href;
    scan();
    banners.forEach((b) => safe(render)(b));
  });

  const checkUrl = safe(() => {
    if (location.href !== lastUrl) refresh();
  });

  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      setTimeout(checkUrl, 0);
      return result;
    };
  }
  addEventListener('popstate', checkUrl);
  setInterval(checkUrl, SCRIPT_URL_WATCH_MS);

  w.dcBanners = {
    version: '1',
    refresh,
    conversion: safe((opts?: { model?: string }) => {
      let last: { model?: string; type?: string } = {};
      try {
        last = JSON.parse(sessionStorage.getItem(LAST_CLICK_KEY) ?? '{}');
      } catch {
        /* no attribution */
      }
      const model = opts?.model ?? last.model;
      if (model) send('conversion', last.type ?? 'header', model);
    }),
  };

  if (document.readyState === 'loading') {
    // Loaded while the page is still parsing (a synchronous tag): replace shortcodes as the parser
    // adds them, before the first paint, so swapping text for the slot shifts nothing (CLS 0).
    const early = new MutationObserver(() => document.body && refresh());
    early.observe(document.documentElement, { childList: true, subtree: true });
    document.addEventListener('DOMContentLoaded', () => {
      early.disconnect();
      refresh();
    });
  } else refresh();
})();
