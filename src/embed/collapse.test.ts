// @vitest-environment jsdom
/**
 * Empty slots that go without moving what the shopper sees (slots.ts): collapseOutOfView hides a
 * slot only once it is out of the viewport, and whenScriptMissing tells the inline snippet when
 * the main script will not take the page over (its script failed to load, or it has not started a
 * while after the page's load event).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collapseOutOfView, whenScriptMissing } from './slots';
import { SCRIPT_GRACE_MS } from '../domain/page-constants';

/** A stand-in for the browser's IntersectionObserver (jsdom has none): the test says when the element enters or leaves the viewport. */
class FakeObserver {
  static all: FakeObserver[] = [];
  target?: Element;
  disconnected = false;
  constructor(private readonly callback: (entries: Array<{ isIntersecting: boolean }>) => void) {
    FakeObserver.all.push(this);
  }
  observe(el: Element) {
    this.target = el;
  }
  disconnect() {
    this.disconnected = true;
  }
  /** The browser's report for the observed element: in the viewport or not. */
  report(isIntersecting: boolean) {
    if (!this.disconnected) this.callback([{ isIntersecting }]);
  }
}
const observer = () => FakeObserver.all.at(-1)!;

/** Animation frame callbacks waiting (jsdom draws no frames): `frame()` runs the next frame's. */
let frames: FrameRequestCallback[] = [];
const frame = () => {
  const due = frames;
  frames = [];
  due.forEach((cb) => cb(0));
};

let readyState: DocumentReadyState = 'complete';
beforeEach(() => {
  FakeObserver.all = [];
  readyState = 'complete';
  frames = [];
  vi.stubGlobal('IntersectionObserver', FakeObserver);
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
  vi.spyOn(document, 'readyState', 'get').mockImplementation(() => readyState);
  document.body.innerHTML = '<div class="dc-banner" data-dc-type="header" style="display:block"></div>';
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const slot = () => document.querySelector<HTMLElement>('.dc-banner')!;

describe('collapseOutOfView', () => {
  it('collapses a slot below the fold in the next frame and stops watching it', () => {
    collapseOutOfView(slot(), () => true);
    expect(observer().target).toBe(slot());
    observer().report(false);
    expect(observer().disconnected).toBe(true);
    frame();
    expect(slot().style.display).toBe('none');
  });

  it('leaves a slot in view as it is and collapses it when the shopper scrolls it away', () => {
    collapseOutOfView(slot(), () => true);
    observer().report(true);
    observer().report(true);
    frame();
    expect(slot().style.display).toBe('block');
    observer().report(false);
    frame();
    expect(slot().style.display).toBe('none');
  });

  it('collapses slots one per frame, so what lies between two of them never shifts', () => {
    document.body.innerHTML += '<div class="dc-banner" data-dc-type="upsell" style="display:block"></div>';
    const [header, upsell] = [...document.querySelectorAll<HTMLElement>('.dc-banner')];
    collapseOutOfView(header!, () => true);
    const first = observer();
    collapseOutOfView(upsell!, () => true);
    first.report(false);
    observer().report(false); // both scrolled away in the same frame
    frame();
    expect([header!.style.display, upsell!.style.display]).toEqual(['none', 'block']);
    frame();
    expect(upsell!.style.display).toBe('none');
    expect(frames).toEqual([]); // nothing left waiting
  });

  it('keeps a slot that shows something by the time it leaves the view, and uses the given hide', () => {
    let empty = true;
    const hide = vi.fn();
    collapseOutOfView(slot(), () => empty, hide);
    observer().report(true);
    empty = false; // a banner arrived meanwhile
    observer().report(false);
    frame();
    expect(hide).not.toHaveBeenCalled();
    expect(slot().style.display).toBe('block');
    expect(observer().disconnected).toBe(true);

    collapseOutOfView(slot(), () => true, hide);
    observer().report(false);
    frame();
    expect(hide).toHaveBeenCalledTimes(1);
    expect(slot().style.display).toBe('block'); // the caller's hide, not display:none
  });

  it('never throws into the page when asking or hiding fails, and goes on with the next slot', () => {
    document.body.innerHTML += '<div class="dc-banner" data-dc-type="upsell" style="display:block"></div>';
    const upsell = document.querySelectorAll<HTMLElement>('.dc-banner')[1]!;
    collapseOutOfView(slot(), () => {
      throw new Error('page broke something');
    });
    observer().report(false);
    collapseOutOfView(upsell, () => true);
    observer().report(false);
    expect(() => frame()).not.toThrow();
    frame();
    expect(upsell.style.display).toBe('none');
  });
});

describe('whenScriptMissing', () => {
  /** A script element of the page, as the tag or another script writes it. */
  const script = (src: string) => {
    const el = document.createElement('script');
    el.setAttribute('src', src);
    el.type = 'text/plain'; // jsdom does not fetch it
    document.head.appendChild(el);
    return el;
  };
  /** The resource error the browser fires at an element that failed to load (it does not bubble). */
  const failLoad = (el: Element) => el.dispatchEvent(new Event('error'));

  it('gives up at once, once, when our script fails to load, naming its URL', () => {
    const giveUp = vi.fn();
    whenScriptMissing(() => false, giveUp);
    const ours = script('https://banners.example/scripts/dc-banners-honda-of-demo.js');
    failLoad(ours);
    failLoad(ours);
    expect(giveUp).toHaveBeenCalledTimes(1);
    expect(giveUp.mock.calls[0]![0]).toBe('https://banners.example/scripts/dc-banners-honda-of-demo.js did not load (blocked, or its server is down)');
  });

  it("ignores other elements' errors and gives up on nothing once the main script has taken over", () => {
    const giveUp = vi.fn();
    let taken = false;
    whenScriptMissing(() => taken, giveUp);
    failLoad(script('https://cdn.example/analytics.js'));
    const img = document.createElement('img');
    img.setAttribute('src', 'https://banners.example/api/scripts/honda-of-demo/asset?type=header');
    document.body.appendChild(img);
    failLoad(img);
    expect(giveUp).not.toHaveBeenCalled();
    taken = true;
    failLoad(script('https://banners.example/scripts/dc-banners-honda-of-demo.js'));
    expect(giveUp).not.toHaveBeenCalled();
  });

  it('gives up SCRIPT_GRACE_MS after the load event when the script never started, and not when it did', () => {
    vi.useFakeTimers();
    readyState = 'loading';
    const missing = vi.fn();
    const started = vi.fn();
    let taken = false;
    whenScriptMissing(() => false, missing);
    whenScriptMissing(() => taken, started);
    vi.advanceTimersByTime(SCRIPT_GRACE_MS * 10); // still loading: no clock runs yet
    expect(missing).not.toHaveBeenCalled();
    readyState = 'complete';
    window.dispatchEvent(new Event('load'));
    vi.advanceTimersByTime(SCRIPT_GRACE_MS - 1);
    expect(missing).not.toHaveBeenCalled();
    taken = true; // a tag manager's late insert ran within the wait
    vi.advanceTimersByTime(1);
    expect(missing).toHaveBeenCalledWith('the banner script has not started 3 s after load (is its tag on the page?)');
    expect(started).not.toHaveBeenCalled();
  });

  it('starts the wait at once when the page has loaded already', () => {
    vi.useFakeTimers();
    const giveUp = vi.fn();
    whenScriptMissing(() => false, giveUp);
    vi.advanceTimersByTime(SCRIPT_GRACE_MS);
    expect(giveUp).toHaveBeenCalledTimes(1);
  });
});
