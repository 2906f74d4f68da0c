/** Display helpers for assets (spec 02 §3 Asset: size in KB, rounded; DECISIONS 12: storage in MB). */
import type { Asset, AssetType } from '../../../domain/schemas';
import { SLOT_TEXTS, SLOT_TYPES } from '../../../domain/slots';

/** Bytes as whole kilobytes: 153600 -> '150 KB'. */
export const formatKb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

/** Bytes as megabytes, one decimal (5242880 -> '5.0 MB'), two below 0.1 MB so small use is not '0.0 MB'. */
export const formatMb = (bytes: number) => {
  const mb = bytes / 1024 / 1024;
  return `${mb.toFixed(mb > 0 && mb < 0.1 ? 2 : 1)} MB`;
};

/** An ISO timestamp as a short local date. */
export const formatDate = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** Short label of each asset type, and the Asset Manager's group title (spec 02 §2 Asset Manager), from the slot registry. */
export const ASSET_TYPES_DISPLAY: ReadonlyArray<{ type: AssetType; label: string; group: string }> = SLOT_TYPES.map((type) => ({
  type,
  label: SLOT_TEXTS[type].label,
  group: SLOT_TEXTS[type].group,
}));

/** Short label of an asset type: 'header' -> 'SRP Header'. */
export const assetTypeLabel = (type: AssetType) => ASSET_TYPES_DISPLAY.find((t) => t.type === type)?.label ?? type;

/** What an Asset Manager card's status badge says: Inactive first, else where its window stands. */
export type AssetStatus = 'live' | 'scheduled' | 'expired' | 'inactive';

/** Status labels and badge colours, in the status filter's order. */
export const ASSET_STATUS_DISPLAY: ReadonlyArray<{ status: AssetStatus; label: string; color: string }> = [
  { status: 'live', label: 'Live', color: 'teal' },
  { status: 'scheduled', label: 'Scheduled', color: 'blue' },
  { status: 'expired', label: 'Expired', color: 'orange' },
  { status: 'inactive', label: 'Inactive', color: 'gray' },
];

/** An asset's status: 'inactive' when switched off, else its window's status at the server's time (Asset.schedule). */
export const assetStatus = (a: Pick<Asset, 'isActive' | 'schedule'>): AssetStatus => (a.isActive ? a.schedule : 'inactive');

/** An ISO instant as a short date and time in `timeZone` (the dealer's zone): 'Jul 4, 2026, 9:00 AM'. */
export const formatInZone = (iso: string, timeZone: string) =>
  new Date(iso).toLocaleString('en-US', { timeZone, year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
