// @vitest-environment jsdom
/**
 * slotsFor on text the HTML parser delivers in pieces: a shortcode split across two network chunks
 * is withheld (never on the page raw) and joined with its end, whether the parser appends to the
 * same text node or starts a new one after the slots it already has; and shortcodeTexts, which
 * finds the text nodes with shortcodes in a subtree.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isHeld, shortcodeTexts, slotsFor } from './slots';

let state: DocumentReadyState = 'loading';
Object.defineProperty(document, 'readyState', { configurable: true, get: () => state });
afterEach(() => {
  state = 'loading';
  document.body.replaceChildren();
});

/** A paragraph holding one text node, as the parser adds it. */
function paragraph(text: string): Text {
  const p = document.createElement('p');
  const node = document.createTextNode(text);
  p.appendChild(node);
  document.body.appendChild(p);
  return node;
}
const types = (els: HTMLElement[]) => els.map((e) => e.dataset.dcType);
/** A caller that expects no slot to be made late. */
const none = (slots: HTMLElement[]) => expect(slots).toEqual([]);

describe('slotsFor across parser chunks', () => {
  it('withholds the start of a shortcode and makes its slot when the parser appends the rest to the node', () => {
    const node = paragraph('Offers: [dc-banner type="');
    expect(slotsFor(node, none)).toEqual([]);
    expect(node.nodeValue).toBe('Offers: ');
    node.appendData('header"] this month');
    expect(types(slotsFor(node, none))).toEqual(['header']);
    expect(node.nodeValue).toBe('Offers:  this month');
    expect(node.parentElement!.innerHTML).toBe('Offers:  this month<div class="dc-banner" data-dc-type="header"></div>');
  });

  it('joins the withheld start with a new text node the parser starts after the slots', () => {
    const node = paragraph('[dc-banner type="header"] and [dc-ban');
    expect(types(slotsFor(node, none))).toEqual(['header']);
    expect(node.nodeValue).toBe(' and ');
    const next = document.createTextNode('ner type=”upsell”] more');
    node.parentElement!.appendChild(next);
    expect(types(slotsFor(next, none))).toEqual(['upsell']);
    expect(next.nodeValue).toBe(' more');
    expect(node.nodeValue).toBe(' and ');
  });

  it('puts back text that never became a shortcode once the document is parsed', () => {
    const node = paragraph('Footnote [d');
    slotsFor(node, none);
    expect(node.nodeValue).toBe('Footnote ');
    state = 'interactive';
    document.dispatchEvent(new Event('DOMContentLoaded'));
    expect(node.nodeValue).toBe('Footnote [d');
  });

  it('makes the slot of a shortcode finished in the task that ends parsing when the document is parsed, and hands it to the caller then', () => {
    const node = paragraph('Offers: [dc-banner type="');
    const late: HTMLElement[] = [];
    expect(slotsFor(node, (s) => late.push(...s))).toEqual([]);
    expect(isHeld(node)).toBe(true);
    // The last chunk and the end of the document in one parser task: no observer ran in between.
    node.appendData('header"]');
    state = 'interactive';
    document.dispatchEvent(new Event('DOMContentLoaded'));
    expect(types(late)).toEqual(['header']);
    expect(late[0]!.isConnected).toBe(true);
    expect(node.nodeValue).toBe('Offers: ');
    expect(isHeld(node)).toBe(false);
  });

  it('withholds nothing once the document has been parsed', () => {
    state = 'complete';
    const node = paragraph('Offers: [dc-banner type="');
    expect(slotsFor(node, none)).toEqual([]);
    expect(node.nodeValue).toBe('Offers: [dc-banner type="');
  });
});

describe('shortcodeTexts', () => {
  it('finds the text nodes of a subtree that hold a shortcode, any case, in document order', () => {
    document.body.innerHTML = '<main><h1>Civic [DC-Banner type="header"]</h1><p>No banner: [dc-bann er] [dc banner]</p><ul><li>Deep <b>[dc-banner type=”upsell”]</b></li></ul><p>[dc-banner type="primary"] tail</p></main><aside>[dc-banner type="primary"]</aside>';
    const found = shortcodeTexts(document.querySelector('main')!);
    expect(found.map((t) => t.nodeValue)).toEqual(['Civic [DC-Banner type="header"]', '[dc-banner type=”upsell”]', '[dc-banner type="primary"] tail']);
    expect(found.every((t) => t.nodeType === 3)).toBe(true);
  });

  it('finds none in a subtree without a shortcode, nor in its elements\' names and attributes', () => {
    document.body.innerHTML = '<section title="[dc-banner type=&quot;header&quot;]"><p>Offers this month</p></section>';
    expect(shortcodeTexts(document.querySelector('section')!)).toEqual([]);
  });
});
