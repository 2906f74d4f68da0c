/**
 * The dealer's custom CSS on its own site (issue 15 "Branding on the dealer's site"; spec 01
 * dealer settings, branding.customCss): applied to the dealer's banner slots only.
 *
 * `scopeCustomCss` parses the text with postcss (unbalanced braces, unclosed comments or strings
 * are a syntax error, so nothing can break out of a rule) and rebuilds it so every selector starts
 * at the script's own slot class, `.dc-banner` (SLOT_CLASS): `img { … }` becomes
 * `.dc-banner img { … }`, a selector that already starts with `.dc-banner` stays, and declarations
 * outside any rule apply to the slot itself. What could reach the rest of the page is dropped:
 * selectors that leave the slot through a sibling combinator (`.dc-banner ~ p`), at-rules other
 * than @media, @supports and @container (@import, @font-face, @keyframes, @layer and the like are
 * global), `url()` other than https: and data:image/, and `position: fixed`.
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
      out = `${SCOPE} ${sel.toString().trim()}`;
    }
  }).processSync(selector);
  return out;
}

function scopeRule(rule: Rule): void {
  const selectors = rule.selectors.map(scopeSelector).filter((s): s is string => s !== null);
  if (selectors.length === 0) rule.remove();
  else rule.selectors = selectors;
}

function keepDeclaration(decl: Declaration): boolean {
  if (!urlsAllowed(decl.value)) return false;
  return !(decl.prop.toLowerCase() === 'position' && /fixed/i.test(decl.value));
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
 * does not parse.
 */
export function scopeCustomCss(css: string, field = 'branding.customCss'): string {
  if (css.trim() === '') return '';
  let root;
  try {
    root = postcss.parse(css);
  } catch (e) {
    const err = e as { reason?: string; line?: number; column?: number; message: string };
    const where = err.line ? ` at line ${err.line}, column ${err.column}` : '';
    throw new Invalid(`${field}: CSS syntax error${where}: ${err.reason ?? err.message}`);
  }
  root.walkComments((c) => {
    c.remove();
  });
  scopeContainer(root);
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
