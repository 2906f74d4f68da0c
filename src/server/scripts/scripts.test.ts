/**
 * The per-dealer embed script over HTTP (spec 01 §7): JavaScript with the dealer's
 * configuration, a strong ETag with 304 on If-None-Match, a new ETag after a change that affects
 * the script, and a JavaScript comment (404) for an unknown dealer.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-app';
import { DEMO_ACCOUNTS, DEMO_DEALER } from '../db/seed';

let t: TestApp;
const url = `/scripts/dc-banners-${DEMO_DEALER.id}.js`;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('dealer script', () => {
  it('serves the script with its configuration, a strong ETag and 304 on If-None-Match', async () => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain(`"dealerId":"${DEMO_DEALER.id}"`);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('changes when the configuration it carries changes', async () => {
    const before = await t.app.inject({ method: 'GET', url });
    await saveSizes({ srpHeaderDesktop: { width: 1600, height: 250 } });
    const after = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': before.headers.etag as string } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body).toContain('1600');
  });

  it('answers an unknown dealer with a 404 JavaScript comment', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/scripts/dc-banners-nobody.js' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('/* dc-banners: unknown dealer */');
  });
});

/** Saves `changes` over the demo dealer's banner sizes as its manager; resolves with the manager's cookie and the sizes before. */
async function saveSizes(changes: Record<string, { width: number; height: number }>): Promise<{ cookie: string; sizes: Record<string, { width: number; height: number }> }> {
  const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
  const sizes = (await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/configs`, headers: { cookie } })).json().bannerSizes;
  const saved = await t.app.inject({ method: 'PUT', url: `/api/dealers/${DEMO_DEALER.id}/configs`, headers: { cookie }, payload: { bannerSizes: { ...sizes, ...changes } } });
  expect(saved.statusCode).toBe(200);
  return { cookie, sizes };
}

describe('tag-manager install', () => {
  it("hands out the async script alone, the banner elements and the CSS reserving their boxes from the dealer's sizes", async () => {
    const { cookie, sizes } = await saveSizes({ srpHeaderDesktop: { width: 1500, height: 240 }, srpHeaderMobile: { width: 640, height: 480 }, inlineMobile: { width: 300, height: 500 } });
    const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/script`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const { scriptUrl, tagManager } = res.json() as { scriptUrl: string; tagManager: { tag: string; markup: string[]; css: string } };
    expect(tagManager.tag).toBe(`<script src="${scriptUrl}" async></script>`);
    expect(tagManager.markup).toEqual(['<div data-dc-banner="header"></div>', '<div data-dc-banner="primary"></div>', '<div data-dc-banner="upsell"></div>']);
    const inline = `${sizes.inlineDesktop!.width}/${sizes.inlineDesktop!.height}`;
    expect(tagManager.css.split('\n')).toEqual([
      '[data-dc-banner=header i]{display:block;width:100%;max-width:1920px;aspect-ratio:1500/240;margin:0 auto;contain:paint}@media(max-width:768px){[data-dc-banner=header i]{aspect-ratio:640/480}}',
      `[data-dc-banner=primary i]{display:block;width:100%;max-width:350px;aspect-ratio:${inline};margin:0 auto;contain:paint}@media(max-width:768px){[data-dc-banner=primary i]{aspect-ratio:300/500}}`,
      `[data-dc-banner=upsell i]{display:block;width:100%;max-width:350px;aspect-ratio:${inline};margin:0 auto;contain:paint}@media(max-width:768px){[data-dc-banner=upsell i]{aspect-ratio:300/500}}`,
    ]);
  });
});

describe('first-party install', () => {
  it("hands out the tag on the dealer's own /dcb path, the snippet's code (and CSP hash) unchanged, and the nginx block that proxies it here", async () => {
    const cookie = await t.login(DEMO_ACCOUNTS[1]!.email, DEMO_ACCOUNTS[1]!.password);
    const res = await t.app.inject({ method: 'GET', url: `/api/dealers/${DEMO_DEALER.id}/script`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const { scriptUrl, scriptTag, snippetHash, firstParty } = res.json() as { scriptUrl: string; scriptTag: string; snippetHash: string; firstParty: { path: string; tag: string; proxy: string } };
    const origin = scriptUrl.slice(0, scriptUrl.indexOf('/scripts/'));
    expect(firstParty.path).toBe('/dcb');
    const [, snippet] = /^<script data-dc-base="\/dcb">([\s\S]*)<\/script>\n<script src="\/dcb\/scripts\/dc-banners-honda-of-demo\.js" async><\/script>$/.exec(firstParty.tag) ?? [];
    expect(snippet).toBe(/^<script>([\s\S]*)<\/script>\n/.exec(scriptTag)![1]);
    expect(`'sha256-${createHash('sha256').update(snippet!).digest('base64')}'`).toBe(snippetHash);
    expect(firstParty.proxy.split('\n')).toEqual([
      'location /dcb/ {',
      `    proxy_pass ${origin}/;`,
      `    proxy_set_header Host ${new URL(origin).host};`,
      '    proxy_set_header Cookie "";',
      '    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      '    proxy_set_header X-Forwarded-Proto $scheme;',
      '    proxy_http_version 1.1;',
      '    proxy_set_header Connection "";',
      '}',
    ]);
  });
});
