/**
 * The slot registry: every banner slot type a dealer page can hold ([dc-banner type="..."]), the
 * size family whose configured sizes it uses, and the texts and numbers the screens show for it
 * (spec 01 §1, §5, §9; spec 02 §2, §4-§5, §9; DECISIONS 23). Server, web app and embed script
 * derive their slot lists, size keys, labels and defaults from here, so a new slot type is an
 * edit to these tables plus what is genuinely new about it.
 *
 * Two kinds of table:
 * - SLOTS and SIZE_FAMILIES: what a slot is (its size family, which planned model it shows, its
 *   max width on the page, its side of the ratio rule);
 * - SLOT_TEXTS and SIZE_FAMILY_SETTINGS: what the screens show and the settings start from
 *   (labels, defaults, ranges, presets).
 * The embed script does not bundle these tables (they would take a sixth of its 4 KB brotli budget):
 * it receives each dealer's sizes keyed by slot type in its configuration, and carries compact
 * copies of the rest (src/embed/shortcodes.ts, index.ts) that src/embed/shortcodes.test.ts checks
 * against this module. Plain object literals only (no zod).
 */

/** Devices a slot has a size for, in the order every per-variant list uses. */
export const VARIANTS = ['desktop', 'mobile'] as const;
export type Variant = (typeof VARIANTS)[number];

/** A size family: slot types that share one configured size per variant. */
export type SizeFamily = 'srpHeader' | 'inline';

/** What a slot shows of its page's plan (slot-plan.ts PagePlan): the page's model or its upsell target. */
export type SlotShows = 'model' | 'upsell';

/**
 * The slot types, in their default order (shortcode list, Preview, coverage, asset groups):
 * - family: whose configured sizes and max width the slot uses;
 * - shows: which model of the page's plan it shows.
 */
export const SLOTS = {
  header: { family: 'srpHeader', shows: 'model' },
  primary: { family: 'inline', shows: 'model' },
  upsell: { family: 'inline', shows: 'upsell' },
} as const satisfies Record<string, { family: SizeFamily; shows: SlotShows }>;

export type SlotType = keyof typeof SLOTS;

/** Slot types a shortcode can ask for, in default order (spec 01 §1, spec 02 §2 Script). */
export const SLOT_TYPES = Object.keys(SLOTS) as [SlotType, ...SlotType[]];

/**
 * The size families: `maxWidthPx` is the slot's CSS max width on the page (spec 01 §9: header
 * 1920 px, inline 350 px); `wide` says which side of the ratio rule its creatives fall on (width
 * more than WIDE_HEADER_RATIO x height: wide), used when no size matches exactly.
 */
export const SIZE_FAMILIES = {
  srpHeader: { maxWidthPx: 1920, wide: true },
  inline: { maxWidthPx: 350, wide: false },
} as const satisfies Record<SizeFamily, { maxWidthPx: number; wide: boolean }>;

/** A configured size key: family plus variant, as dealers' assetStorage.bannerSizes and fallbackAssets store them ('srpHeaderDesktop'). */
export type BannerSlot = `${SizeFamily}${Capitalize<Variant>}`;

/** The size key of a family and variant: ('inline', 'mobile') -> 'inlineMobile'. */
export function sizeKeyOf(family: SizeFamily, variant: Variant): BannerSlot {
  return `${family}${variant === 'mobile' ? 'Mobile' : 'Desktop'}`;
}

/** The size key a slot uses on a device: ('upsell', 'mobile') -> 'inlineMobile'. */
export function slotSizeKey(slot: SlotType, variant: Variant): BannerSlot {
  return sizeKeyOf(SLOTS[slot].family, variant);
}

/** The four configured banner sizes, family by family, desktop before mobile (spec 02 §5). */
export const BANNER_SLOTS = (Object.keys(SIZE_FAMILIES) as SizeFamily[]).flatMap((f) => VARIANTS.map((v) => sizeKeyOf(f, v))) as [
  BannerSlot,
  ...BannerSlot[],
];

interface Size {
  width: number;
  height: number;
}
interface SizeRange {
  width: { min: number; max: number };
  height: { min: number; max: number };
}

/**
 * Per slot type, what the screens say about it:
 * - label: its name in the asset filter and lists ('SRP Header'); group: its asset group title
 *   (spec 02 §2 Asset Manager); short: its coverage column; help: the Script page's line about it;
 * - color: its badge color (Mantine color name).
 */
export const SLOT_TEXTS = {
  header: {
    label: 'SRP Header',
    group: 'SRP Header Banners',
    short: 'Header',
    help: 'SRP header banner, full width above the search results.',
    color: 'indigo',
  },
  primary: {
    label: 'Inline',
    group: 'Inline Banners',
    short: 'Inline',
    help: 'Inline banner for the searched model, placed among the results.',
    color: 'grape',
  },
  upsell: {
    label: 'Upsell',
    group: 'Upsell Banners',
    short: 'Upsell',
    help: 'Inline banner for the model one step up, from your upsell rules.',
    color: 'orange',
  },
} as const satisfies Record<SlotType, { label: string; group: string; short: string; help: string; color: string }>;

/**
 * Per size family, its settings and texts:
 * - label: the name its size keys are shown under ('SRP Header' -> 'SRP Header Desktop', spec 02 §2);
 * - uploadType: the asset type an upload of this family's shape is stored as, and typeLabel its
 *   label in the upload results (spec 02 §2 Asset upload panel: 'Header Banner', 'Inline Banner');
 * - defaults, ranges: default sizes (spec 01 §9, DECISIONS 23) and allowed inputs (spec 02 §5), px;
 * - presets: the named size presets besides 'Standard' (the defaults) (spec 02 §9).
 */
export const SIZE_FAMILY_SETTINGS = {
  srpHeader: {
    label: 'SRP Header',
    uploadType: 'header',
    typeLabel: 'Header Banner',
    defaults: { desktop: { width: 1920, height: 300 }, mobile: { width: 600, height: 500 } },
    ranges: {
      desktop: { width: { min: 100, max: 3000 }, height: { min: 50, max: 1000 } },
      mobile: { width: { min: 100, max: 1000 }, height: { min: 50, max: 1000 } },
    },
    presets: {
      Compact: { desktop: { width: 1200, height: 250 }, mobile: { width: 500, height: 400 } },
      'Large/High-Res': { desktop: { width: 2560, height: 400 }, mobile: { width: 800, height: 600 } },
    },
  },
  inline: {
    label: 'Inline',
    uploadType: 'primary',
    typeLabel: 'Inline Banner',
    defaults: { desktop: { width: 350, height: 564 }, mobile: { width: 350, height: 564 } },
    ranges: {
      desktop: { width: { min: 100, max: 1000 }, height: { min: 100, max: 1000 } },
      mobile: { width: { min: 100, max: 1000 }, height: { min: 100, max: 1000 } },
    },
    presets: {
      Compact: { desktop: { width: 300, height: 500 }, mobile: { width: 300, height: 500 } },
      'Large/High-Res': { desktop: { width: 400, height: 600 }, mobile: { width: 400, height: 600 } },
    },
  },
} as const satisfies Record<
  SizeFamily,
  {
    label: string;
    uploadType: SlotType;
    typeLabel: string;
    defaults: Record<Variant, Size>;
    ranges: Record<Variant, SizeRange>;
    presets: Record<string, Record<Variant, Size>>;
  }
>;

/** The asset types an upload is classified as (one per size family): 'header' | 'primary'. */
export type UploadType = (typeof SIZE_FAMILY_SETTINGS)[SizeFamily]['uploadType'];

/** The upload types in size family order (header first): ['header', 'primary']. */
export const UPLOAD_TYPES = Object.values(SIZE_FAMILY_SETTINGS).map((f) => f.uploadType) as [UploadType, ...UploadType[]];

/** The family and variant of a size key: 'srpHeaderMobile' -> ['srpHeader', 'mobile']. */
export function familyOf(key: BannerSlot): [SizeFamily, Variant] {
  const variant: Variant = key.endsWith('Mobile') ? 'mobile' : 'desktop';
  return [key.slice(0, key.length - (variant === 'mobile' ? 6 : 7)) as SizeFamily, variant];
}

/** The label of a size key as the screens show it (spec 02 §2): 'srpHeaderDesktop' -> 'SRP Header Desktop'. */
export function bannerSizeLabel(key: BannerSlot): string {
  const [family, variant] = familyOf(key);
  return `${SIZE_FAMILY_SETTINGS[family].label} ${variant === 'mobile' ? 'Mobile' : 'Desktop'}`;
}

/** One value per size key, in BANNER_SLOTS order, from its family and variant. */
export function perSizeKey<T>(value: (family: SizeFamily, variant: Variant, key: BannerSlot) => T): Record<BannerSlot, T> {
  return Object.fromEntries(BANNER_SLOTS.map((k) => [k, value(...familyOf(k), k)])) as Record<BannerSlot, T>;
}

/** One value per slot type, in SLOT_TYPES order. */
export function perSlotType<T>(value: (slot: SlotType) => T): Record<SlotType, T> {
  return Object.fromEntries(SLOT_TYPES.map((s) => [s, value(s)])) as Record<SlotType, T>;
}

/** Every size key's label (bannerSizeLabel), for the settings forms and size lists. */
export const BANNER_SIZE_LABELS: Readonly<Record<BannerSlot, string>> = perSizeKey((_f, _v, key) => bannerSizeLabel(key));

/** A slot type's badge colour (SLOT_TEXTS `color`), for asset lists. */
export const slotColor = (type: SlotType): string => SLOT_TEXTS[type].color;

/** True when a slot of `type` shows the page's upsell target (SLOTS `shows`): Preview and coverage explain its choice. */
export const showsUpsell = (type: SlotType): boolean => SLOTS[type].shows === 'upsell';
