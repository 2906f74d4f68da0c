/**
 * The dealer's custom CSS scoped to its banner slots:
 * scopeCustomCss's rules, the settings save refusing CSS that does not parse, and the dealer's
 * script carrying the scoped stylesheet only when there is custom CSS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customCssStatement, scopeCustomCss } from './custom-css';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';

/** The scoped text with runs of white space as one space and none before '}' (postcss keeps the input's own spacing). */
const flat = (css: string) => scopeCustomCss(css).replace(/\s+/g, ' ').replace(/;? ?}/g, ' }');

describe('scopeCustomCss', () => {
  it('puts every selector under the slot class and keeps selectors that already start there', () => {
    expect(flat('img { border-radius: 8px } a:hover, .promo > span { color: red }')).toBe(
      '.dc-banner img { border-radius: 8px } .dc-banner a:hover, .dc-banner .promo > span { color: red }',
    );
    expect(flat('.dc-banner { box-shadow: 0 0 4px #000 } .dc-banner:hover img { opacity: .9 }')).toBe(
      '.dc-banner { box-shadow: 0 0 4px #000 } .dc-banner:hover img { opacity: .9 }',
    );
  });

  it('applies declarations outside any rule to the slot itself, also inside @media', () => {
    expect(flat('border: 1px solid #ccc;')).toBe('.dc-banner {border: 1px solid #ccc }');
    expect(flat('@media (max-width: 600px) { img { margin: 0 } }')).toBe('@media (max-width: 600px) { .dc-banner img { margin: 0 } }');
  });

  it('drops what would reach the host page: body/html become descendants, sibling combinators, global at-rules, nesting', () => {
    expect(flat('body { background: red }')).toBe('.dc-banner body { background: red }'); // matches nothing
    expect(flat('.dc-banner ~ p { color: red } .dc-banner + div { color: red }')).toBe('');
    expect(flat('.dc-banner ~ p, img { color: red }')).toBe('.dc-banner img { color: red }');
    // A selector that starts with the combinator names the slot's siblings once prefixed.
    expect(flat('~ main { display: none } + div, /**/~ p, > img { color: red } @media all { ~ * { color: red } }')).toBe('.dc-banner > img { color: red } @media all { }');
    expect(flat('@import url(https://x.example/a.css); @font-face { font-family: X; src: url(https://x.example/x.woff) } @keyframes k { from { opacity: 0 } } @layer base;')).toBe('');
    expect(flat('img { color: red; p { color: blue } }')).toBe('.dc-banner img { color: red }');
  });

  it('keeps https and data:image URLs only, and no position: fixed', () => {
    expect(flat('a { background: url(https://cdn.example/x.png) } b { background: url("data:image/png;base64,AA==") }')).toContain('url(https://cdn.example/x.png)');
    expect(flat('a { background: url(http://tracker.example/p.gif); color: red }')).toBe('.dc-banner a { color: red }');
    expect(flat('a { background: url(//tracker.example/p.gif) }')).toBe('.dc-banner a { }');
    expect(flat('a { background: \\75rl(http://x.example/p.gif) }')).toBe('.dc-banner a { }');
    expect(flat('.dc-banner { position: fixed; top: 0 }')).toBe('.dc-banner { top: 0 }');
  });

  it("drops what would undo the slot's paint containment: contain and all, however spelt", () => {
    expect(flat('.dc-banner { contain: none !important; color: red }')).toBe('.dc-banner { color: red }');
    expect(flat('.dc-banner { all: revert !important; color: red }')).toBe('.dc-banner { color: red }');
    expect(flat('.dc-banner { CONT\\41 IN: none }')).toBe('.dc-banner { }');
  });

  it.each([
    ['a custom property fed to position', '.dc-banner { --p: fixed; position: var(--p); inset: 0 }', '.dc-banner { inset: 0 }'],
    ['var() with a fallback', '.dc-banner { position: var(--nope, fixed); top: 0 }', '.dc-banner { top: 0 }'],
    ['a host-page variable (whatever it holds)', '.dc-banner { position: var(--page-position) }', '.dc-banner { }'],
    ['env() and attr()', 'img { position: env(p); color: red } a { position: attr(data-p) }', '.dc-banner img { color: red } .dc-banner a { }'],
    ['an escaped property name', '.dc-banner { posit\\ion: fixed; z-index: 9 }', '.dc-banner { z-index: 9 }'],
    ['a hex-escaped property name', '.dc-banner { posit\\69 on: fixed } .dc-banner { p\\00006Fsition:fixed }', '.dc-banner { } .dc-banner { }'],
    ['an escaped value', '.dc-banner { position: fi\\78 ed; color: red }', '.dc-banner { color: red }'],
    ['a comment splitting the value', '.dc-banner { position: fi/**/xed; color: red }', '.dc-banner { color: red }'],
    ['a comment before !important', '.dc-banner { position: fixed/**/!important }', '.dc-banner { }'],
    ['!important spelt apart', '.dc-banner { position: fixed ! important }', '.dc-banner { }'],
    ['an old-IE hack after the value', '.dc-banner { position: fixed!ie }', '.dc-banner { }'],
    ['a custom property holding fixed or a refused URL', '.dc-banner { --a: fixed; --b: url(http://t.example/p.gif); --c: 4px; margin: var(--c) }', '.dc-banner { --c: 4px; margin: var(--c) }'],
    ['expression() and behaviours', 'img { width: expression(alert(1)); behavior: url(https://x.example/x.htc); -moz-binding: url(https://x.example/x.xml#x) }', '.dc-banner img { }'],
    ['url(javascript:)', 'a { background: url(javascript:alert(1)); background-image: url("javascript:alert(1)") }', '.dc-banner a { }'],
    ['@import, also in @media', '@import "https://x.example/a.css"; @media screen { @import url(https://x.example/a.css); img { color: red } }', '@media screen { .dc-banner img { color: red } }'],
  ])('drops %s', (_name, css, expected) => {
    expect(flat(css)).toBe(expected);
  });

  it('keeps legitimate CSS, escaped property names written plainly, !important and computed values elsewhere', () => {
    expect(flat('.dc-banner { position: relative !important; --gap: 4px; margin: var(--gap, 2px) calc(1px + 2%) } img { position: absolute; inset: 0 }')).toBe(
      '.dc-banner { position: relative !important; --gap: 4px; margin: var(--gap, 2px) calc(1px + 2%) } .dc-banner img { position: absolute; inset: 0 }',
    );
    expect(flat('img { b\\6f rder-radius: 8px; COLOR: Red; -webkit-filter: blur(1px); position: sticky /* keeps */ }')).toBe(
      '.dc-banner img { border-radius: 8px; color: Red; -webkit-filter: blur(1px); position: sticky }',
    );
    expect(flat('@supports (display: grid) { .dc-banner { display: grid; background: url(https://cdn.example/x.png) no-repeat } }')).toBe(
      '@supports (display: grid) { .dc-banner { display: grid; background: url(https://cdn.example/x.png) no-repeat } }',
    );
  });

  it('refuses text that is not CSS, naming the field, line and column', () => {
    expect(() => scopeCustomCss('} body { background: red } .x {')).toThrow(/^branding\.customCss: CSS syntax error at line 1, column 1: Unexpected \}/);
    expect(() => scopeCustomCss('img { color: red')).toThrow(/CSS syntax error at line 1, column 1: Unclosed block/);
    expect(() => scopeCustomCss('/* open', 'x')).toThrow(/^x: CSS syntax error/);
    expect(() => scopeCustomCss('img { color: red }\n[a=,] { color: red }')).toThrow(/^branding\.customCss: CSS syntax error at line 2, column 1: .*selector "\[a=,\]"/);
  });

  it('gives no statement for blank or broken CSS, and escapes "<" in the one it gives', () => {
    expect(customCssStatement('')).toBe('');
    expect(customCssStatement('img {')).toBe('');
    const js = customCssStatement('img::after { content: "</script>" }');
    expect(js).toContain('\\u003c/script>');
    expect(js).not.toContain('</script>');
  });
});

describe('custom CSS through the API', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    ({ t, cookie: admin } = await createSignedInTestApp('admin'));
  });
  afterAll(() => t.close());

  const settings = () => `/api/admin/dealers/${DEMO_DEALER.id}/settings`;
  const script = () => t.app.inject({ method: 'GET', url: `/scripts/dc-banners-${DEMO_DEALER.id}.js` });
  const branding = async () => (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}`, headers: { cookie: admin } })).json().dealer.branding;

  it('a dealer without custom CSS gets no stylesheet statement; with it, the scoped text leads the script', async () => {
    expect((await script()).body).not.toContain('CSSStyleSheet');
    const res = await t.app.inject({ method: 'PUT', url: settings(), headers: { cookie: admin }, payload: { branding: { ...(await branding()), customCss: 'img { outline: 2px solid rgb(255, 0, 0) }' } } });
    expect(res.statusCode).toBe(200);
    const body = (await script()).body;
    expect(body.startsWith('(()=>{try{const s=new CSSStyleSheet;s.replaceSync(".dc-banner img { outline: 2px solid rgb(255, 0, 0) }")')).toBe(true);
  });

  it('refuses CSS that does not parse with a 400 naming the field, and keeps what was stored', async () => {
    const before = await branding();
    const res = await t.app.inject({ method: 'PUT', url: settings(), headers: { cookie: admin }, payload: { branding: { ...before, customCss: '} body { background: red }' } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^branding\.customCss: CSS syntax error at line 1, column 1/);
    expect(await branding()).toEqual(before);
  });

  it('refuses a selector only the selector parser finds broken with a 400, on save and on import, not a 500', async () => {
    const before = await branding();
    const res = await t.app.inject({ method: 'PUT', url: settings(), headers: { cookie: admin }, payload: { branding: { ...before, customCss: '[a=,] { color: red }' } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/^branding\.customCss: CSS syntax error at line 1, column 1: .*selector/);
    expect(await branding()).toEqual(before);
    const doc = (await t.app.inject({ method: 'GET', url: '/api/admin/export', headers: { cookie: admin } })).json();
    const dealer = { ...doc.dealers.find((d: { id: string }) => d.id === DEMO_DEALER.id), id: 'css-import', branding: { ...before, customCss: '[a=,] { color: red }' } };
    const imported = await t.app.inject({ method: 'POST', url: '/api/admin/import', headers: { cookie: admin }, payload: { ...doc, dealers: [dealer], users: [] } });
    expect(imported.statusCode).toBe(400);
    expect(imported.json().error.message).toMatch(/branding\.customCss: CSS syntax error/);
  });
});
