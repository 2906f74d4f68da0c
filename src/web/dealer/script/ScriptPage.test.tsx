/** The Script page's warning when the address it hands out is one ad blockers block by name. */
import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ScriptInfo } from '../../../domain/contracts/public';
import { server } from '../../test/setup';
import { renderApp, userOf } from '../../test/render';
import { DealerScriptPage } from '../../scripts/DealerScriptPage';
import { ScriptPage } from './ScriptPage';

const DEALER = 'honda-of-demo';

/** GET /api/dealers/honda-of-demo/script as the server answers it for PUBLIC_ORIGIN `origin`. */
function scriptInfo(origin: string): ScriptInfo {
  const scriptUrl = `${origin}/scripts/dc-banners-${DEALER}.js`;
  return {
    scriptUrl,
    scriptTag: `<script>/* snippet */</script>\n<script src="${scriptUrl}" async></script>`,
    snippetHash: "'sha256-AAAA'",
    shortcodes: ['[dc-banner type="hero"]'],
    tagManager: {
      tag: `<script src="${scriptUrl}" async></script>`,
      markup: ['<div data-dc-banner="hero"></div>'],
      css: '[data-dc-banner=hero i]{display:block;aspect-ratio:3/1}',
    },
    firstParty: {
      path: '/dcb',
      tag: `<script data-dc-base="/dcb">/* snippet */</script>\n<script src="/dcb/scripts/dc-banners-${DEALER}.js" async></script>`,
      proxy: `location /dcb/ {\n    proxy_pass ${origin}/;\n}`,
    },
    content: '/* dc-banners */',
    dealer: { id: DEALER, name: 'Honda of Demo', manufacturer: 'Honda', provider: 'custom', status: 'active' },
    security: { allowedDomains: [], enableCors: false, requireHttps: false },
    summary: { mappings: [], mappingsTotal: 0, upsellRules: [], upsellRulesTotal: 0, impressions: 0, clicks: 0, ctr: null },
  };
}

/** The dealer's Script page, as a viewer, with the server answering `info` (the script page API for PUBLIC_ORIGIN `origin` by default). */
async function openWith(origin: string, info = scriptInfo(origin)) {
  answer(info);
  renderApp(<ScriptPage />, { user: userOf('viewer') });
  await screen.findByRole('button', { name: 'Copy script tag' });
}

function answer(info: ScriptInfo) {
  server.use(
    http.get(`/api/dealers/${DEALER}/script`, () => HttpResponse.json(info)),
    http.get(`/api/dealers/${DEALER}/tag-health`, () => HttpResponse.json({ windowHours: 24, since: new Date().toISOString(), seen: [], counts: [] })),
    http.get(`/api/dealers/${DEALER}/models`, () => HttpResponse.json({ models: [] })),
  );
}

describe('where banners are counted', () => {
  const guarded = { ...scriptInfo('https://dcb.example.com'), security: { allowedDomains: ['hondaofdemo.com'], enableCors: true, requireHttps: true } };

  it("shows a viewer the allowed domains read-only, how www. matches, the HTTPS rule and the page-view rule", async () => {
    await openWith('https://dcb.example.com', guarded);
    const section = screen.getByRole('region', { name: 'Where banners are counted' });
    expect(within(section).getByText('hondaofdemo.com')).toBeTruthy();
    expect(section.textContent).toContain('does not cover the bare example.com');
    expect(section.textContent).toContain('Only an administrator can change this list');
    expect(section.textContent).toContain('Only pages served over HTTPS are counted.');
    expect(section.textContent).toContain('One page view counts each banner at most once.');
    expect(within(section).queryByRole('link')).toBeNull();
  });

  it("links the admin's script page for the dealer to the settings where the domains are edited", async () => {
    answer(guarded);
    renderApp(<DealerScriptPage />, { route: { path: '/scripts/:dealerId', url: `/scripts/${DEALER}` } });
    const section = await screen.findByRole('region', { name: 'Where banners are counted' });
    expect(within(section).getByRole('link', { name: 'Edit allowed domains' }).getAttribute('href')).toBe(`/admin/dealers/${DEALER}/settings`);
    expect(section.textContent).not.toContain('Only an administrator');
  });
});

describe('ScriptPage ad-blocker naming warning', () => {
  it('warns, naming the rule and what to rename, when the script host starts with banners.', async () => {
    await openWith('https://banners.example.com');
    const notice = screen.getByTestId('blocklist-notice');
    expect(notice.textContent).toContain('Ad blockers will hide these banners');
    expect(notice.textContent).toContain('://banners.');
    expect(notice.textContent).toContain('another first label');
  });

  it('warns about a path prefix ad blockers block', async () => {
    await openWith('https://www.dealer.com/ads');
    expect(screen.getByTestId('blocklist-notice').textContent).toContain('/ads/');
  });

  it('shows no warning for a plausible production host on the default paths', async () => {
    await openWith('https://dcb.example.com');
    expect(screen.queryByTestId('blocklist-notice')).toBeNull();
  });
});

describe('ScriptPage for sites a framework hydrates', () => {
  it('hands out the banner element for the first shortcode type and names the data-dc-hydrate mark', async () => {
    await openWith('https://dcb.example.com');
    expect(screen.getByRole('button', { name: 'Copy banner element' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Step 2: Place the banner shortcodes' })).getByText('<div data-dc-banner="hero"></div>')).toBeTruthy();
    expect(screen.getByText(/to the element your framework hydrates/).textContent).toContain('data-dc-hydrate');
  });
});

describe('ScriptPage install through a tag manager', () => {
  it('hands out the Custom HTML tag, the banner elements and the CSS, each copyable, with the trade-offs', async () => {
    await openWith('https://dcb.example.com');
    const section = screen.getByRole('region', { name: 'Install through a tag manager' });
    expect(within(section).getByText('<script src="https://dcb.example.com/scripts/dc-banners-honda-of-demo.js" async></script>')).toBeTruthy();
    expect(within(section).getByText('[data-dc-banner=hero i]{display:block;aspect-ratio:3/1}')).toBeTruthy();
    for (const name of ['Copy tag manager tag', 'Copy hero banner element', 'Copy banner CSS']) expect(within(section).getByRole('button', { name })).toBeTruthy();
    expect(section.textContent).toContain("If a shopper's ad blocker stops the tag manager, the reserved spaces stay empty");
  });
});

describe("ScriptPage install from the dealer's own domain", () => {
  it("hands out the proxy configuration and the tag on the dealer's own path, each copyable", async () => {
    await openWith('https://dcb.example.com');
    const section = screen.getByRole('region', { name: 'Serve from your own domain' });
    expect(within(section).getByText(/proxy_pass https:\/\/dcb\.example\.com\/;/)).toBeTruthy();
    // The tag's two edits shown, the snippet's code (shown in full in step 1) left out of the box.
    const tag = within(section).getByText(/<script src="\/dcb\/scripts\/dc-banners-honda-of-demo\.js" async><\/script>/);
    expect(tag.textContent).toBe('<script data-dc-base="/dcb">…the code of the tag above…</script>\n<script src="/dcb/scripts/dc-banners-honda-of-demo.js" async></script>');
    for (const name of ['Copy proxy configuration', 'Copy first-party script tag']) expect(within(section).getByRole('button', { name })).toBeTruthy();
    expect(section.textContent).toContain("Your site's cookies are not passed on");
  });
});
