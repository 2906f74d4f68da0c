/**
 * Placeholder banners in the dealer's branding (colours, font, logo), readable text, and
 * every piece of text XML-escaped.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { contrastRatio, fontStack, placeholderSvg, readableTextColor } from './placeholder';
import { FONT_CHOICES } from '../../domain/constants';

const base = { manufacturer: 'Honda', model: 'CR-V', slot: 'upsell', width: 600, height: 500 };
const attrs = (svg: string, tag: string) => [...svg.matchAll(new RegExp(`<${tag} ([^>]*)>`, 'g'))].map((m) => m[1]!);

describe('placeholderSvg', () => {
  it("uses the branding's primary colour as background, the secondary for accents and its font", () => {
    const svg = placeholderSvg({ ...base, color: '#CC0000', branding: { primaryColor: '#0A2540', secondaryColor: '#FFD166', fontFamily: 'Georgia, serif' } });
    expect(svg).toContain('<rect width="100%" height="100%" fill="#0A2540"/>');
    expect(svg).not.toContain('#CC0000'); // the manufacturer's colour only when the branding has none
    expect(svg).toContain('stroke="#FFD166"'); // border in the secondary colour
    expect(svg).toMatch(/<rect [^>]*fill="#FFD166"\/>/); // the rule under the title
    const texts = attrs(svg, 'text');
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('fill="#FFFFFF"'); // white title on a dark background
    expect(texts[1]).toContain('fill="#FFD166"'); // the subtitle in the secondary colour (contrast >= 4.5)
    for (const t of texts) expect(t).toContain(`font-family="Georgia, &apos;Times New Roman&apos;, Times, serif"`);
    expect(svg).toContain('>Honda CR-V</text>');
    expect(svg).toContain('>upsell banner · 600x500</text>');
  });

  it('picks dark text on a light background and keeps a low-contrast secondary colour off text', () => {
    const svg = placeholderSvg({ ...base, branding: { primaryColor: '#F5F5F5', secondaryColor: '#FFFF00', fontFamily: 'Courier New, monospace' } });
    const texts = attrs(svg, 'text');
    expect(texts[0]).toContain('fill="#111111"');
    expect(texts[1]).toContain('fill="#111111"'); // yellow on near-white is unreadable
    expect(svg).not.toContain('#FFFF00');
    expect(texts[0]).toContain("font-family=\"&apos;Courier New&apos;, Courier, &apos;Liberation Mono&apos;, monospace\"");
  });

  it("keeps the default branding readable (#000000 / #666666): white text, the grey only as an accent", () => {
    const svg = placeholderSvg({ ...base, branding: { primaryColor: '#000000', secondaryColor: '#666666', fontFamily: 'Arial, sans-serif' } });
    const texts = attrs(svg, 'text');
    expect(texts.every((t) => t.includes('fill="#FFFFFF"'))).toBe(true);
    expect(svg).toContain('stroke="#666666"'); // 3.7:1, enough for a border, not for small text
  });

  it('falls back to the manufacturer colour, then slate, when the branding colour is not #RRGGBB', () => {
    expect(placeholderSvg({ ...base, color: '#CC0000', branding: { primaryColor: 'red"/><script>' } })).toContain('fill="#CC0000"/>');
    expect(placeholderSvg({ ...base, branding: { primaryColor: 'url(#x)' } })).toContain('fill="#334155"/>');
    expect(placeholderSvg(base)).toContain('fill="#334155"/>');
  });

  it('XML-escapes the texts', () => {
    const svg = placeholderSvg({ ...base, manufacturer: 'A&B "Motors"', model: "<script>alert('x')</script>", slot: 'primary' });
    expect(svg).toContain('>A&amp;B &quot;Motors&quot; &lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;</text>');
    expect(svg).not.toContain('<script');
  });

  it('renders as a valid SVG (sharp parses it) with and without a logo', async () => {
    const logoPng = await sharp({ create: { width: 200, height: 80, channels: 4, background: '#ffffff' } }).png().toBuffer();
    const logo = { dataUri: `data:image/png;base64,${logoPng.toString('base64')}`, width: 200, height: 80 };
    for (const size of [
      { width: 1920, height: 300 },
      { width: 600, height: 500 },
      { width: 350, height: 564 },
    ]) {
      for (const l of [null, logo]) {
        const svg = placeholderSvg({ ...base, ...size, branding: { primaryColor: '#123456', secondaryColor: '#ABCDEF', fontFamily: 'Arial, sans-serif' }, logo: l });
        const meta = await sharp(Buffer.from(svg)).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['svg', size.width, size.height]);
      }
    }
  });

  it('places a logo inside the banner, never enlarged, and only a data:image URI', () => {
    const logo = { dataUri: 'data:image/png;base64,AAAA', width: 200, height: 80 };
    const wide = placeholderSvg({ ...base, width: 1920, height: 300, logo });
    const [img] = attrs(wide, 'image');
    expect(img).toContain('href="data:image/png;base64,AAAA"');
    expect(img).toMatch(/ width="200" height="80"/); // fits the box at its own size
    expect(img).toContain('y="110"'); // vertically centred on a wide header
    const tall = placeholderSvg({ ...base, width: 350, height: 564, logo });
    const [small] = attrs(tall, 'image');
    const w = Number(/ width="([\d.]+)"/.exec(small!)![1]);
    const h = Number(/ height="([\d.]+)"/.exec(small!)![1]);
    expect(w).toBeLessThanOrEqual(350 * 0.6);
    expect(h).toBeLessThanOrEqual(564 * 0.2);
    expect(w / h).toBeCloseTo(2.5, 1);
    expect(placeholderSvg({ ...base, logo: { ...logo, dataUri: 'https://evil.example.com/x.png' } })).not.toContain('<image');
    expect(placeholderSvg({ ...base, logo: null })).not.toContain('<image');
  });
});

describe('colour and font helpers', () => {
  it('computes WCAG contrast and picks the more readable text colour', () => {
    expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBe(1);
    expect(readableTextColor('#CC0000')).toBe('#FFFFFF');
    expect(readableTextColor('#FFD166')).toBe('#111111');
  });

  it('maps every font choice to a stack ending in its generic family, anything else to Arial', () => {
    for (const f of FONT_CHOICES) expect(fontStack(f).endsWith(f.split(', ').pop()!)).toBe(true);
    expect(fontStack('Comic Sans MS')).toBe(fontStack('Arial, sans-serif'));
    expect(fontStack(undefined)).toBe(fontStack('Arial, sans-serif'));
    expect(fontStack('constructor')).toBe(fontStack('Arial, sans-serif'));
  });
});
