/**
 * The generated placeholder banner shown when no asset matches (spec 02 §4 step 6, DECISIONS 14 d):
 * an SVG naming manufacturer, model, slot and size.
 */
const escapeXml = (s: string) =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** SVG markup of width x height CSS pixels. Text is XML-escaped. */
export function placeholderSvg(p: {
  manufacturer: string;
  model: string;
  slot: string;
  width: number;
  height: number;
  color?: string;
}): string {
  const { width: w, height: h } = p;
  const color = /^#[0-9a-fA-F]{6}$/.test(p.color ?? '') ? p.color! : '#334155';
  const big = Math.max(12, Math.min(h * 0.18, w * 0.07));
  const small = Math.max(10, big * 0.5);
  const title = `${p.manufacturer} ${p.model || 'Any model'}`.trim();
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
<rect width="100%" height="100%" fill="${color}"/>
<rect x="4" y="4" width="${w - 8}" height="${h - 8}" fill="none" stroke="#ffffff" stroke-opacity="0.35" stroke-dasharray="8 6"/>
<text x="50%" y="46%" fill="#ffffff" font-family="Arial, sans-serif" font-size="${big.toFixed(0)}" font-weight="700" text-anchor="middle">${escapeXml(title)}</text>
<text x="50%" y="${(46 + (small / h) * 100 * 1.8).toFixed(1)}%" fill="#ffffff" fill-opacity="0.85" font-family="Arial, sans-serif" font-size="${small.toFixed(0)}" text-anchor="middle">${escapeXml(`${p.slot} banner · ${w}x${h}`)}</text>
</svg>`;
}
