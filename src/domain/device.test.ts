import { describe, expect, it } from 'vitest';
import { deviceOf } from './device';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID_PHONE = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36';
const FIREFOX_PHONE = 'Mozilla/5.0 (Android 14; Mobile; rv:126.0) Gecko/126.0 Firefox/126.0';
const ANDROID_TABLET = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36';
const IPAD = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36';

describe('deviceOf', () => {
  it('follows Sec-CH-UA-Mobile when the browser sends it, whatever the user agent says', () => {
    expect(deviceOf('?1', WINDOWS)).toBe('mobile');
    expect(deviceOf('?0', ANDROID_PHONE)).toBe('desktop');
    expect(deviceOf(' ?1 ', undefined)).toBe('mobile');
  });

  it('reads the user agent without the hint: phones are mobile, computers and tablets desktop', () => {
    expect([IPHONE, ANDROID_PHONE, FIREFOX_PHONE].map((ua) => deviceOf(undefined, ua))).toEqual(['mobile', 'mobile', 'mobile']);
    expect([WINDOWS, ANDROID_TABLET, IPAD].map((ua) => deviceOf(undefined, ua))).toEqual(['desktop', 'desktop', 'desktop']);
    expect(deviceOf('', IPHONE)).toBe('mobile');
  });

  it('is unknown with neither header', () => {
    expect(deviceOf(undefined, undefined)).toBe('unknown');
    expect(deviceOf(undefined, '')).toBe('unknown');
  });
});
