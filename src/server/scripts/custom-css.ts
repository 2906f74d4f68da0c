/**
 * The dealer's custom CSS on its own site (spec 01
 * dealer settings, branding.customCss): applied to the dealer's banner slots only.
 *
 * `scopeCustomCss` parses the text with postcss (unbalanced braces, unclosed comments or strings
 * are a syntax error, so nothing can break out of a rule) and rebuilds it so every selector starts
 * at the script's own slot class, `.dc-banner` (SLOT_CLASS): `img { … }` becomes
 * `.dc-banner img { … }`, a selector that already starts with `.dc-banner` stays, and declarations
 * outside any rule apply to the slot itself. What could reach the rest of the page is dropped:
 * selectors that leave the slot through a sibling combinator (`.dc-banner ~ p`), at-rules other
 * than @media, @supports and @container (@import, @font-face, @keyframes, @layer and the like are
 * global), `url()` other than https: and data:image/, `position: fixed`, and `contain` and `all`
 * (they would undo the slot's paint containment, which keeps its content inside its box). The rules run on what a
 * browser reads: property names with their CSS escapes decoded, values without comments; a value
 * that is escaped or computed where it matters (`fi\78 ed`, `position: var(--p)`) is dropped, and
 * so is a custom property that could feed a forbidden value (see keepDeclaration).
 *
 * `customCssStatement` is the JavaScript the server puts before the dealer's script when the
 * dealer has custom CSS: it adopts the scoped text as a constructed stylesheet, which a dealer
 * page's CSP `style-src` does not block (a `<style>` element would be). Dealers without custom
 * CSS get no extra byte.
 */
import postcss, { type AtRule, type ChildNode, type Container, type Declaration, type Rule } from 'postcss';
import selectorParser from 'postcss-selector-parser';
import { Invalid } from '../errors';

/** The class the embed script gives every banner slot (src/embed/slots.ts). */
export const SLOT_CLASS = 'dc-banner';
const SCOPE = `.${SLOT_CLASS}`;
const KEPT_AT_RULES = new Set(['media', 'supports', 'container']);
const SAFE_URL = /^\s*(?:["']\s*)?(?:https:|data:image\/)/i;

/**
 * True when every `url(...)` in a declaration value is https: or data:image/. Values with
 * image-set() (bare URL strings) or CSS escapes (a way to spell `url(` differently) are refused.
 */
function urlsAllowed(value: string): boolean {
  if (value.includes('\\') || /image-set\(/i.test(value)) return false;
  for (const m of value.matchAll(/url\(([^)]*)\)/gi)) if (!SAFE_URL.test(m[1]!)) return false;
  return true;
}

/** One selector scoped under the slot, or null when it would reach outside it. */
function scopeSelector(selector: string): string | null {
  let out: string | null = null;
  selectorParser((root) => {
    const sel = root.first;
    const first = sel.first;
    // A selector that names the slot first (`.dc-banner`, `.dc-banner:hover img`) stays as written.
    const namesSlot = first?.type === 'class' && first.value === SLOT_CLASS;
    if (namesSlot) {
      const combinator = sel.nodes.find((n) => n.type === 'combinator');
      if (combinator && /[~+]/.test(combinator.value)) return; // a sibling of the slot is the host page
      out = sel.toString().trim();
    } else {
      // A selector that starts with a sibling combinator (`~ p`, `/**/+ div`) would read `.dc-banner ~ p` once prefixed.
      const lead = sel.nodes.find((n) => n.type !== 'comment');
      if (lead?.type === 'combinator' && /[~+]/.test(lead.value)) return;
      out = `${SCOPE} ${sel.toString().trim()}`;
    }
  }).processSync(selector);
  return out;
}

/** A selector postcss accepts but the selector parser cannot read (`[a=,]`): a syntax error of the dealer's CSS, not of ours. */
class SelectorSyntaxError extends Error {
  constructor(
    readonly rule: Rule,
    reason: string,
  ) {
    super(reason);
  }
}

function scopeRule(rule: Rule): void {
  let selectors: string[];
  try {
    selectors = rule.selectors.map(scopeSelector).filter((s): s is string => s !== null);
  } catch (e) {
    throw new SelectorSyntaxError(rule, (e as Error).message);
  }
  if (selectors.length === 0) rule.remove();
  else rule.selectors = selectors;
}

/** The values `position` may take: never `fixed` (a full-page overlay), nor anything computed (var(), env(), attr()). */
const POSITIONS = new Set(['static', 'relative', 'absolute', 'sticky', 'inherit', 'initial', 'unset', 'revert', 'revert-layer']);
/**
 * Properties never kept: those that run code or load bindings in old browsers, and those that
 * would undo the slot's paint containment (`contain: paint` in its inline style, src/embed/slots.ts),
 * which keeps whatever is inside the slot drawn within its box.
 */
const DROPPED_PROPERTIES = new Set(['behavior', '-moz-binding', 'contain', 'all']);
/** Values that run code in old browsers or name a script URL. */
const CODE_VALUE = /expression\s*\(|javascript:|vbscript:/i;
/** A property name once its escapes are decoded: a custom property or a plain (possibly vendor-prefixed) one. */
const PROPERTY = /^(?:--[\w-]+|-?[a-z][a-z0-9-]*)$/i;

/**
 * The text of a CSS identifier with its escapes decoded (CSS Syntax 3 §4.3.7): `\69 ` and `\000069`
 * are `i`, `\i` is `i`; a code point that is zero, a surrogate or past U+10FFFF becomes U+FFFD.
 */
export function cssUnescape(text: string): string {
  return text.replace(/\\(?:([0-9a-f]{1,6})[ \t\n\r\f]?|([\s\S]))/gi, (_m, hex: string | undefined, char: string | undefined) => {
    if (hex === undefined) return char!;
    const cp = parseInt(hex, 16);
    return cp === 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ? '\uFFFD' : String.fromCodePoint(cp);
  });
}

/**
 * Makes a declaration say plainly what a browser reads, then applies the property rules; false when
 * it must be dropped. The property name's escapes are decoded (`posit\ion` is `position`) and the
 * comments around the value removed, so the rules see and the output holds the plain text; a value
 * with an escape or a comment inside it (ways to spell a keyword or function differently) is
 * dropped, as is `position` with any value but a listed one (so no `var()` can feed it `fixed`), a
 * custom property holding what another property may not (`fixed`, a refused url(), script), a
 * url() other than https: and data:image/, and script in old browsers' syntax.
 */
function keepDeclaration(decl: Declaration): boolean {
  const prop = cssUnescape(decl.prop);
  if (!PROPERTY.test(prop)) return false;
  const custom = prop.startsWith('--');
  decl.prop = custom ? prop : prop.toLowerCase();
  delete decl.raws.value; // the value as postcss cleaned it (comments at its ends removed) is what is checked and written
  if (decl.raws.between?.includes('/*')) decl.raws.between = ':';
  const value = decl.value;
  if (value.includes('/*') || !urlsAllowed(value) || CODE_VALUE.test(value) || DROPPED_PROPERTIES.has(decl.prop)) return false;
  if (decl.prop === 'position') return POSITIONS.has(value.trim().toLowerCase());
  return !(custom && /fixed/i.test(value));
}

/** Scopes the children of the stylesheet or of a kept at-rule; declarations there apply to the slot itself. */
function scopeContainer(container: Container<ChildNode>): void {
  const loose: Declaration[] = [];
  for (const node of [...container.nodes ?? []]) {
    if (node.type === 'rule') {
      scopeRule(node);
      node.walkDecls((d) => {
        if (!keepDeclaration(d)) d.remove();
      });
      node.walkRules((nested) => {
        nested.remove();
      }); // no CSS nesting: its selectors would escape the scope
      node.walkAtRules((a) => {
        a.remove();
      });
    } else if (node.type === 'atrule') {
      if (KEPT_AT_RULES.has((node as AtRule).name.toLowerCase()) && node.nodes) scopeContainer(node);
      else node.remove();
    } else if (node.type === 'decl') {
      node.remove();
      if (keepDeclaration(node)) loose.push(node);
    }
  }
  if (loose.length) container.prepend(postcss.rule({ selector: SCOPE, nodes: loose }));
}

/**
 * The dealer's custom CSS scoped to its banner slots (module doc), minified of comments; '' for
 * blank input. @throws Invalid('{field}: CSS syntax error at line L, column C: {reason}') when it
 * does not parse, a selector included (`[a=,]`, which postcss takes but the selector parser cannot read).
 */
export function scopeCustomCss(css: string, field = 'branding.customCss'): string {
  if (css.trim() === '') return '';
  let root;
  try {
    root = postcss.parse(css);
  } catch (e) {
    const err = e as { reason?: string; line?: number; column?: number; message: string };
    const where = err.line ? ` at line ${err.line}, column ${err.column}` : '';
    throw Invalid.field(field, `CSS syntax error${where}: ${err.reason ?? err.message}`, 'css_syntax');
  }
  root.walkComments((c) => {
    c.remove();
  });
  try {
    scopeContainer(root);
  } catch (e) {
    if (!(e instanceof SelectorSyntaxError)) throw e;
    const start = e.rule.source?.start;
    const where = start ? ` at line ${start.line}, column ${start.column}` : '';
    throw Invalid.field(field, `CSS syntax error${where}: ${e.message} (selector ${JSON.stringify(e.rule.selector.slice(0, 80))})`, 'css_syntax');
  }
  return root.toString().trim();
}

/**
 * The statement put before a dealer's script when it has custom CSS ('' otherwise): adopts the
 * scoped CSS as a constructed stylesheet (browsers without them simply skip it). A CSS text that does not parse (stored before this check existed) gives ''.
 */
export function customCssStatement(css: string): string {
  let scoped: string;
  try {
    scoped = scopeCustomCss(css);
  } catch {
    return '';
  }
  if (!scoped) return '';
  // JSON is valid JavaScript; '<' escaped so the text can never close a surrounding <script> tag.
  const text = JSON.stringify(scoped).replace(/</g, '\\u003c');
  return `(()=>{try{const s=new CSSStyleSheet;s.replaceSync(${text});document.adoptedStyleSheets=[...document.adoptedStyleSheets,s]}catch{}})();\n`;
}
