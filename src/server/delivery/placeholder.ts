/**
 * The generated placeholder banner shown when no asset matches (spec 02 §4 step 6, DECISIONS 14 d):
 * an SVG naming manufacturer, model, slot and size, in the dealer's branding: the primary
 * colour as background, the secondary colour for accents (and the subtitle) where it reads well on
 * it, the text white or dark by contrast, the branding font as a safe CSS font stack, and the
 * dealer's logo when it has been fetched (logo-fetcher.ts: a data: URI, since an SVG shown through
 * <img> loads nothing external). All text is XML-escaped.
 */
import { FONT_CHOICES } from '../../domain/constants';

const escapeXml = (s: string) =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

const HEX = /^#[0-9a-fA-F]{6}$/;
const DEFAULT_BACKGROUND = '#334155';
const WHITE = '#FFFFFF';
const DARK = '#111111';

/** Branding choices -> font stacks with common fallbacks (generic family last). */
const FONT_STACKS: Record<(typeof FONT_CHOICES)[number], string> = {
  'Arial, sans-serif': "Arial, 'Helvetica Neue', Helvetica, 'Liberation Sans', sans-serif",
  'Helvetica, sans-serif': "Helvetica, 'Helvetica Neue', Arial, 'Liberation Sans', sans-serif",
  'Times New Roman, serif': "'Times New Roman', Times, 'Liberation Serif', serif",
  'Georgia, serif': "Georgia, 'Times New Roman', Times, serif",
  'Courier New, monospace': "'Courier New', Courier, 'Liberation Mono', monospace",
};

/** The CSS font stack of a branding font choice (FONT_CHOICES); anything else gets the Arial stack. */
export function fontStack(fontFamily: string | undefined): string {
  return Object.hasOwn(FONT_STACKS, fontFamily ?? '') ? FONT_STACKS[fontFamily as keyof typeof FONT_STACKS] : FONT_STACKS['Arial, sans-serif'];
}

/** WCAG relative luminance of a '#RRGGBB' colour (0 black .. 1 white). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG contrast ratio of two '#RRGGBB' colours (1 .. 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** White or dark text, whichever contrasts more with the '#RRGGBB' background. */
export function readableTextColor(background: string): string {
  return contrastRatio(background, WHITE) >= contrastRatio(background, DARK) ? WHITE : DARK;
}

/** A logo ready to inline: a data: URI of a raster image and its size in pixels. */
export interface PlaceholderLogo {
  dataUri: string;
  width: number;
  height: number;
}

/** Where the logo goes: left and vertically centred on wide banners, top-centred otherwise; never enlarged. */
function logoBox(logo: PlaceholderLogo, w: number, h: number) {
  const wide = w >= 2 * h;
  const maxW = wide ? w * 0.2 : w * 0.6;
  const maxH = wide ? h * 0.45 : h * 0.2;
  const scale = Math.min(1, maxW / logo.width, maxH / logo.height);
  const lw = logo.width * scale;
  const lh = logo.height * scale;
  const x = wide ? Math.max(8, h * 0.12) : (w - lw) / 2;
  const y = wide ? (h - lh) / 2 : h * 0.08;
  return { x, y, width: lw, height: lh };
}

const px = (n: number) => n.toFixed(1).replace(/\.0$/, '');

/**
 * SVG markup of width x height CSS pixels (see module doc). `branding` colours that are not
 * '#RRGGBB' are ignored: the background falls back to `color` (the manufacturer's), then slate; the
 * secondary colour is used for the border and title rule only when it contrasts at least 3:1 with
 * the background, and for the subtitle at 4.5:1. `logo` must be a data: URI (logo-fetcher.ts).
 */
export function placeholderSvg(p: {
  manufacturer: string;
  model: string;
  slot: string;
  width: number;
  height: number;
  /** The manufacturer's colour: the background when the branding has none. */
  color?: string;
  branding?: { primaryColor?: string; secondaryColor?: string; fontFamily?: string };
  logo?: PlaceholderLogo | null;
}): string {
  const { width: w, height: h } = p;
  const b = p.branding ?? {};
  const bg = HEX.test(b.primaryColor ?? '') ? b.primaryColor! : HEX.test(p.color ?? '') ? p.color! : DEFAULT_BACKGROUND;
  const text = readableTextColor(bg);
  const secondary = HEX.test(b.secondaryColor ?? '') ? b.secondaryColor! : null;
  const accent = secondary && contrastRatio(secondary, bg) >= 3 ? secondary : null;
  const subtitle = secondary && contrastRatio(secondary, bg) >= 4.5 ? secondary : null;
  const font = escapeXml(fontStack(b.fontFamily));
  const big = Math.max(12, Math.min(h * 0.18, w * 0.07));
  const small = Math.max(10, big * 0.5);
  const title = `${p.manufacturer} ${p.model || 'Any model'}`.trim();
  const logo = p.logo && p.logo.dataUri.startsWith('data:image/') && p.logo.width > 0 && p.logo.height > 0 ? p.logo : null;
  const box = logo ? logoBox(logo, w, h) : null;
  const ruleW = Math.min(w * 0.3, big * 4);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
<rect width="100%" height="100%" fill="${bg}"/>
<rect x="4" y="4" width="${w - 8}" height="${h - 8}" fill="none" stroke="${accent ?? text}" stroke-opacity="${accent ? 0.9 : 0.35}" stroke-dasharray="8 6"/>
${box ? `<image href="${escapeXml(logo!.dataUri)}" x="${px(box.x)}" y="${px(box.y)}" width="${px(box.width)}" height="${px(box.height)}" preserveAspectRatio="xMidYMid meet"/>\n` : ''}<text x="50%" y="46%" fill="${text}" font-family="${font}" font-size="${big.toFixed(0)}" font-weight="700" text-anchor="middle">${escapeXml(title)}</text>
${accent ? `<rect x="${px((w - ruleW) / 2)}" y="${px(h * 0.46 + big * 0.3)}" width="${px(ruleW)}" height="${px(Math.max(2, big * 0.08))}" fill="${accent}"/>\n` : ''}<text x="50%" y="${(46 + (small / h) * 100 * 1.8).toFixed(1)}%" fill="${subtitle ?? text}" fill-opacity="${subtitle ? 1 : 0.85}" font-family="${font}" font-size="${small.toFixed(0)}" text-anchor="middle">${escapeXml(`${p.slot} banner · ${w}x${h}`)}</text>
</svg>`;
}
