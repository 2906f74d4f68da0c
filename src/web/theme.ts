/**
 * The web app's Mantine theme, with colours that pass WCAG 2.1 AA contrast (4.5:1 for text; issue
 * 16): Mantine's default palettes put white text on shade 6 and coloured text on its 10 % tint,
 * which reads at 2-3.5:1 for red, green, teal, orange and yellow. The CSS variables below keep the
 * palettes (charts, bars and borders look the same) but darken, per colour, what text sits on or
 * is: filled backgrounds under white text, light-variant text on its tint, outline and subtle text,
 * dimmed text, links and error messages.
 */
import { createTheme, type CSSVariablesResolver, type MantineColorsTuple } from '@mantine/core';

/** The contrast every text colour must reach (WCAG 2.1 AA normal text is 4.5; a margin for rounding). */
const MIN_CONTRAST = 4.6;

type Rgb = [number, number, number];

function rgbOf(color: string): Rgb {
  const hex = color.replace('#', '');
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

function hexOf([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG relative luminance of an sRGB colour. */
function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours (1..21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(rgbOf(a)), luminance(rgbOf(b))].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `color` at `alpha` over white, as an opaque colour (Mantine's light-variant backgrounds). */
function tint(color: string, alpha: number): string {
  return hexOf(rgbOf(color).map((v) => v * alpha + 255 * (1 - alpha)) as Rgb);
}

/** `color` with each channel scaled down by `amount` (0..1), as Mantine's darken() does. */
function darken(color: string, amount: number): string {
  return hexOf(rgbOf(color).map((v) => v * (1 - amount)) as Rgb);
}

/** `color`, darkened in small steps until it reaches MIN_CONTRAST against `background`. */
export function readableOn(color: string, background: string): string {
  let c = color;
  for (let i = 0; i < 40 && contrastRatio(c, background) < MIN_CONTRAST; i++) c = darken(c, 0.04);
  return c;
}

/** Black or white, whichever reads better on `background` (a brand colour chosen by an admin). */
export function readableTextOn(background: string): string {
  if (!/^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(background)) return '#ffffff';
  return contrastRatio('#ffffff', background) >= contrastRatio('#000000', background) ? '#ffffff' : '#000000';
}

const SHADE = 6;

/** The light-scheme colour variables of one palette, darkened where text sits on or is the colour. */
function readableVariables(name: string, palette: MantineColorsTuple): Record<string, string> {
  const base = palette[SHADE];
  const filled = readableOn(base, '#ffffff'); // white text on it
  const text = readableOn(base, '#ffffff');
  const lightText = readableOn(base, tint(base, 0.12)); // text on the light variant's tint (hover is 0.12)
  return {
    [`--mantine-color-${name}-filled`]: filled,
    [`--mantine-color-${name}-filled-hover`]: darken(filled, 0.1),
    [`--mantine-color-${name}-light-color`]: lightText,
    [`--mantine-color-${name}-outline`]: text,
    [`--mantine-color-${name}-text`]: text,
  };
}

const resolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    ...Object.assign({}, ...Object.entries(t.colors).map(([name, palette]) => readableVariables(name, palette))),
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-anchor': readableOn(t.colors.red[SHADE], t.colors.gray[0]),
    '--mantine-color-error': readableOn(t.colors.red[SHADE], '#ffffff'),
    '--mantine-color-placeholder': 'var(--mantine-color-gray-6)',
  },
  dark: {},
});

/** Pass to MantineProvider's `cssVariablesResolver`: the readable colour variables above. */
export const cssVariablesResolver = resolver;

/** The app's theme: red primary, rounded corners, Inter. */
export const theme = createTheme({
  primaryColor: 'red',
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
  headings: { fontWeight: '700' },
  components: {
    // Tooltips open on keyboard focus too (names truncated on screen are read in full).
    Tooltip: { defaultProps: { events: { hover: true, focus: true, touch: true } } },
    // Every close button has a name for assistive technology (Mantine's are icon-only).
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } } },
    Alert: { defaultProps: { closeButtonLabel: 'Dismiss' } },
  },
});
