/** Names that ad blockers block: which deployment addresses the generic filter rules would match. */
import { describe, expect, it } from 'vitest';
import { blocklistMatch, deploymentBlocklistMatches, publicAddresses } from './blocklist-names';

describe('blocklistMatch', () => {
  it.each([
    'https://dcb.example.com/scripts/dc-banners-demo-honda.js',
    'https://dcb.example.com/api/scripts/demo-honda/asset?type=hero&model=civic',
    'https://dcb.example.com/api/analytics/track',
    'https://media.dealer.com/',
    'http://localhost:3000/scripts/dc-banners-demo-honda.js',
    'https://adsmith.example.com/', // a first label that merely starts with "ads"
    'https://cdn.ads.example.com/', // "ads" as a later label: `://ads.` does not reach it
    'https://example.com/ads', // a file called "ads", not the directory /ads/
    'https://example.com/promo/tracking.json',
  ])('lets %s pass', (url) => {
    expect(blocklistMatch(url)).toBeNull();
  });

  it('names the host rule, its lists and what to rename for a host that starts with banners.', () => {
    expect(blocklistMatch('https://banners.example.com/scripts/dc-banners-demo-honda.js')).toEqual({
      url: 'https://banners.example.com/scripts/dc-banners-demo-honda.js',
      part: 'host',
      name: 'banners',
      rule: '://banners.',
      lists: 'EasyList / AdGuard Base',
      why: expect.stringContaining('another first label'),
    });
  });

  it.each([
    ['https://ads.dealer.com/', '://ads.'],
    ['https://AD.dealer.com/', '://ad.'],
    ['https://banner.example.com/', '://banner.'],
    ['https://adserver.example.net/', '://adserver.'],
    ['https://track.example.com/', '://track.'],
    ['https://tracking.example.com/', '://tracking.'],
    ['https://analytics.example.com/', '://analytics.'],
    ['https://stats.example.com/', '://stats.'],
    ['https://pixel.example.com/', '://pixel.'],
  ])('blocks the host of %s by %s', (url, rule) => {
    expect(blocklistMatch(url)).toMatchObject({ part: 'host', rule });
  });

  it.each([
    ['https://dealer.com/banners/scripts/dc-banners-x.js', '/banners/'],
    ['https://dealer.com/Banner/x.png', '/banner/'],
    ['https://dealer.com/static/ads/x.js', '/ads/'],
    ['https://dealer.com/ad/', '/ad/'],
    ['https://dealer.com/adserver/img', '/adserver/'],
    ['https://dealer.com/js/tracking.js', '/tracking.js'],
    ['https://dealer.com/analytics.js?v=2', '/analytics.js'],
    ['https://dealer.com/assets/promo.js', '/promo.js'],
  ])('blocks the path of %s by %s', (url, rule) => {
    expect(blocklistMatch(url)).toMatchObject({ part: 'path', rule, why: expect.stringContaining(rule) });
  });

  it('is null for what is not an absolute URL', () => {
    expect(blocklistMatch('banners.example.com')).toBeNull();
  });
});

describe('deploymentBlocklistMatches', () => {
  it('passes the product default paths on a plausible production host', () => {
    expect(deploymentBlocklistMatches('https://dcb.example.com', 'demo-honda')).toEqual([]);
    expect(deploymentBlocklistMatches('http://localhost:3000')).toEqual([]);
  });

  it('reports a blocked host once, however many addresses carry it', () => {
    const matches = deploymentBlocklistMatches('https://banners.example.com', 'demo-honda');
    expect(matches.map((m) => m.rule)).toEqual(['://banners.']);
  });

  it('checks a path prefix of PUBLIC_ORIGIN as a directory', () => {
    expect(deploymentBlocklistMatches('https://www.dealer.com/ads').map((m) => m.rule)).toEqual(['/ads/']);
    expect(deploymentBlocklistMatches('https://www.dealer.com/ads/').map((m) => m.rule)).toEqual(['/ads/']);
  });

  it('finds a dealer id that puts a blocked directory into the image address', () => {
    const matches = deploymentBlocklistMatches('https://dcb.example.com', 'ads');
    expect(matches).toEqual([expect.objectContaining({ url: publicAddresses('https://dcb.example.com', 'ads').image, rule: '/ads/' })]);
  });
});
