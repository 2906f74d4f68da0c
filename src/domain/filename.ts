/**
 * Asset filename rules (spec 01 §5, spec 02 §5): new_{year}_{manufacturer}_{model}_{trim}_[extra]_{width}x{height}_[more].{ext}
 */
import type { ParsedFilename } from './schemas';
import { TEXT } from './constants';

const SIZE_PART = /^(\d+)x(\d+)$/i;

/** Lowercased extension without the dot ("" when none). */
export function fileExtension(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
}

/**
 * Parses an asset filename. Split on underscores; valid when there are at least 6 parts, the first
 * is 'new', a {width}x{height} part exists and year, manufacturer, model and trim are non-empty.
 * Parts other than those and the size are kept as `extraParts`.
 */
export function parseAssetFilename(filename: string): ParsedFilename {
  const extension = fileExtension(filename);
  const base = extension ? filename.slice(0, -(extension.length + 1)) : filename;
  const parts = base.split('_');
  const sizeIndex = parts.findIndex((p, i) => i >= 5 && SIZE_PART.test(p));
  const size = sizeIndex >= 0 ? parts[sizeIndex]! : '';
  const m = SIZE_PART.exec(size);
  const [year = '', manufacturer = '', model = '', trim = ''] = parts.slice(1, 5);
  const isValid =
    parts.length >= 6 && parts[0]!.toLowerCase() === 'new' && Boolean(m) && [year, manufacturer, model, trim].every((p) => p.length > 0);
  return {
    isValid,
    year,
    manufacturer: manufacturer.toLowerCase(),
    model: model.toLowerCase(),
    trim: trim.toLowerCase(),
    size,
    dimensions: { width: m ? Number(m[1]) : 0, height: m ? Number(m[2]) : 0 },
    extension,
    originalFilename: filename,
    extraParts: parts.slice(5).filter((_, i) => i + 5 !== sizeIndex),
  };
}

/** Validation result with the spec's error text and the expected-format hint. */
export function validateAssetFilename(
  filename: string,
): { ok: true; parsed: ParsedFilename } | { ok: false; error: string; suggestion: string } {
  const parsed = parseAssetFilename(filename);
  return parsed.isValid ? { ok: true, parsed } : { ok: false, error: TEXT.invalidFilename, suggestion: TEXT.invalidFilenameHint };
}
