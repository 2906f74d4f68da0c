/**
 * The third-party scripts of the slow WordPress fixture page (dealer-inspire-srp.html with
 * THIRD_PARTY): a consent manager, a hero-carousel library and a live-chat widget, about 2 MB of
 * JavaScript together, served from a vendor origin of their own (another port, so another origin
 * than the dealer's page and our server). The code is generated, deterministic (a seeded
 * pseudo-random generator) and not a copy of any vendor's: each bundle is a registry of many small
 * minified-looking modules (so the browser parses megabytes), an initialisation that compiles and
 * runs a share of them (main-thread work of the kind that makes a real page's long tasks), and the
 * vendor's own DOM work and timers:
 * - consent manager (blocking, in <head>): reads and writes a cookie and localStorage, then on
 *   DOMContentLoaded puts a fixed notice at the bottom of the viewport (fixed: nothing moves);
 * - slider (`defer`): turns `.hero-carousel` into an auto-advancing carousel (arrows, dots, a slide
 *   every 2.5 s by transform, which is not a layout shift) and re-measures its slides on each step;
 * - chat widget (async): a hidden conversation panel of a few hundred nodes, a fixed launcher button
 *   after 1.5 s, and a presence heartbeat every second.
 * None uses a MutationObserver or an inline script: the long-task attribution of page-speed.ts
 * counts those as ours.
 */
import { startDealerSite, type DealerSite, type SiteAsset } from './harness';

/** A small seeded generator (mulberry32): the same bundles on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One vendor bundle of about `bytes` characters: `modules` of the registry `R`, then `init`
 * compiling and running every `step`-th module `iterations` times (its main-thread work), then
 * `body` (the vendor's DOM work, which may call `work(n)` for more of the same).
 */
function bundle(name: string, seed: number, bytes: number, step: number, iterations: number, body: string): string {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const ident = () => pick(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'n', 'o', 'r', 's', 't', 'u']) + (rnd() < 0.4 ? pick(['e', 't', 'n', 'r']) : '');
  const word = () => Array.from({ length: 3 + Math.floor(rnd() * 9) }, () => 'abcdefghijklmnopqrstuvwxyz-_'[Math.floor(rnd() * 28)]).join('');
  const text = () => Array.from({ length: 2 + Math.floor(rnd() * 6) }, word).join(' ');
  const shapes = [
    (k: number) => {
      const v = `${ident()}x`;
      return `R[${k}]=function(e,t){var n=e|0,${v}="${text()}";for(var i=0;i<t;i++){n=(Math.imul(n,31)+${v}.charCodeAt(i%${v}.length)+${Math.floor(rnd() * 9973)})|0}return n};`;
    },
    (k: number) => `R[${k}]=function(e,t){var n=[],o={${word().replace(/-/g, '_')}:"${text()}",${word().replace(/-/g, '_')}:${Math.floor(rnd() * 1e6)}};for(var i=0;i<t;i++)n.push((i*${1 + Math.floor(rnd() * 97)}+e)%${101 + Math.floor(rnd() * 900)});n.sort(function(a,b){return a-b});return n.length+Object.keys(o).length+(n[0]|0)};`,
    (k: number) => `R[${k}]=function(e,t){var s="",r="${text()}".split(" ");for(var i=0;i<t;i++)s=r[i%r.length]+s.slice(0,${16 + Math.floor(rnd() * 48)});return s.length^e};`,
    (k: number) => `R[${k}]=function(e,t){var o={};for(var i=0;i<t;i++)o["${word()}"+(i%${3 + Math.floor(rnd() * 29)})]=i*e;var n=0;for(var k in o)n+=o[k]|0;return n};`,
  ];
  const parts: string[] = [];
  let size = 0;
  let modules = 0;
  while (size < bytes) {
    const m = pick(shapes)(modules++);
    parts.push(m);
    size += m.length;
  }
  return `/*! ${name} (generated test fixture, not vendor code) */
(function(){"use strict";var R=[];
${parts.join('\n')}
function work(from,count){var c=0;for(var k=(from>>>0)%${step};k<R.length&&count>0;k+=${step},count--)c=(c+R[k](k,${iterations}))|0;return c}
var checksum=work(0,1e9);
${body}
})();
`;
}

/** The consent manager (blocking in <head>): its state in a cookie and localStorage, its notice on DOMContentLoaded. */
const CONSENT = `
var state={v:2,ts:Date.now(),checksum:checksum,purposes:{necessary:true,analytics:true,marketing:false}};
try{localStorage.setItem("cmp-state",JSON.stringify(state));document.cookie="cmp_seen=1; path=/; max-age=3600"}catch(x){}
window.__cmpStatus="loaded";
document.addEventListener("DOMContentLoaded",function(){
  work(1,400);
  var box=document.createElement("div");
  box.className="cmp-notice";box.setAttribute("role","region");box.setAttribute("aria-label","Cookie notice");
  box.style.cssText="position:fixed;left:0;right:0;bottom:0;z-index:9999;padding:10px 16px;background:#222;color:#fff;font:13px/1.4 system-ui,sans-serif;display:flex;gap:12px;align-items:center";
  var p=document.createElement("p");p.style.margin="0";p.textContent="We use cookies to improve your experience and for analytics. See our privacy policy.";
  var ok=document.createElement("button");ok.type="button";ok.textContent="Accept";
  ok.addEventListener("click",function(){box.remove()});
  box.appendChild(p);box.appendChild(ok);document.body.appendChild(box);
});`;

/** The slider library (`defer`): arrows, dots and a slide every 2.5 s on each `.hero-carousel`. */
const SLIDER = `
function init(root){
  var track=root.querySelector(".hero-track");if(!track)return;
  var slides=track.children,n=slides.length,at=0,dots=document.createElement("div");
  dots.className="hero-dots";
  function go(i){
    at=(i+n)%n;track.style.transform="translateX("+(-100*at)+"%)";
    for(var j=0;j<n;j++){dots.children[j].setAttribute("aria-current",j===at?"true":"false");slides[j].setAttribute("aria-hidden",j===at?"false":"true")}
    work(at,60);root.dataset.steps=String((Number(root.dataset.steps)||0)+1);
    for(var j=0;j<n;j++)slides[j].dataset.width=String(slides[j].getBoundingClientRect().width);
  }
  for(var i=0;i<n;i++){(function(i){var b=document.createElement("button");b.type="button";b.setAttribute("aria-label","Slide "+(i+1));b.addEventListener("click",function(){go(i)});dots.appendChild(b)})(i)}
  ["prev","next"].forEach(function(w){var b=document.createElement("button");b.type="button";b.className="hero-arrow "+w;b.setAttribute("aria-label",w==="prev"?"Previous slide":"Next slide");b.textContent=w==="prev"?"\\u2039":"\\u203a";b.addEventListener("click",function(){go(at+(w==="prev"?-1:1))});root.appendChild(b)});
  root.appendChild(dots);go(0);
  setInterval(function(){go(at+1)},2500);
}
function start(){var roots=document.querySelectorAll(".hero-carousel");for(var i=0;i<roots.length;i++)init(roots[i])}
if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",start);else start();`;

/** The chat widget (async): a hidden panel, a launcher after 1.5 s, a heartbeat every second. */
const CHAT = `
var root=document.createElement("div");root.id="chat-widget-root";
var panel=document.createElement("div");panel.hidden=true;panel.setAttribute("role","dialog");panel.setAttribute("aria-label","Chat with us");
for(var i=0;i<120;i++){var m=document.createElement("div");m.className="chat-msg";var s=document.createElement("span");s.textContent="Message "+i;var t=document.createElement("time");t.textContent=(9+i%10)+":"+(10+i%50);m.appendChild(s);m.appendChild(t);panel.appendChild(m)}
root.appendChild(panel);
function mount(){document.body.appendChild(root)}
if(document.body)mount();else document.addEventListener("DOMContentLoaded",mount);
setTimeout(function(){
  work(2,500);
  var b=document.createElement("button");b.type="button";b.textContent="Chat with us";
  b.style.cssText="position:fixed;right:16px;bottom:64px;z-index:9998;padding:12px 18px;border:0;border-radius:24px;background:#eb0a1e;color:#fff;font:600 14px system-ui,sans-serif";
  b.addEventListener("click",function(){panel.hidden=!panel.hidden});
  root.appendChild(b);
},1500);
var beat=0;setInterval(function(){beat=(beat+work(3+beat%7,8))|0},1000);`;

let cached: Record<string, SiteAsset> | undefined;

/**
 * The vendor origin's files by URL path (about 2 MB of JavaScript together: consent 400 KB,
 * slider 650 KB, chat 950 KB), generated once per process.
 */
export function thirdPartyScripts(): Record<string, SiteAsset> {
  const js = (text: string): SiteAsset => ({ body: text, type: 'text/javascript; charset=utf-8' });
  cached ??= {
    '/consent/cmp.js': js(bundle('Consent manager', 11, 400_000, 12, 900, CONSENT)),
    '/slider/hero-slider.min.js': js(bundle('Hero slider', 23, 650_000, 14, 900, SLIDER)),
    '/chat/widget.js': js(bundle('Chat widget', 37, 950_000, 12, 900, CHAT)),
  };
  return cached;
}

/** Starts the vendor origin (a fixture site of its own, thirdPartyScripts); close it with the test's sites. */
export function startThirdPartyVendor(): Promise<DealerSite> {
  return startDealerSite('', 'head-start.html', { assets: thirdPartyScripts() });
}

/** The fixture variables that turn dealer-inspire-srp.html into the slow third-party page, scripts from `vendor`. */
export function thirdPartyVars(vendor: DealerSite): Record<string, string> {
  return { THIRD_PARTY: 'yes', VENDOR_ORIGIN: vendor.origin };
}
