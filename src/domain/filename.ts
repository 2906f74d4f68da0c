/**
 * Asset filename rules (spec 01 §5, spec 02 §5, DECISIONS 10):
 * new_{year}_{manufacturer}_{model}_{trim}_[extra parts]_{width}x{height}_[more parts].{ext}
 */
import type { ParsedFilename } from './schemas';
import { MAX_FILENAME_LENGTH, TEXT, UPLOAD_TEXT } from './constants';

/** The `{width}x{height}` part. An upper-case X is accepted too ("1920X300"). */
const SIZE_PART = /^(\d+)x(\d+)$/i;

/**
 * Extension of a filename, lowercased, without the dot: "a.JPG" -> "jpg"; "" when there is no dot
 * or the name ends in a dot.
 */
export function fileExtension(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
}

/**
 * Parses an asset filename (spec 01 §5, spec 02 §5). The extension is stripped and the rest split on
 * underscores. Valid when: at least 6 parts; the first is 'new' (any case); parts 1-4 (year,
 * manufacturer, model, trim) are non-empty; and a part from index 5 on is a `{width}x{height}` size
 * (the first such part is the size; a size-like text in the year..trim positions does not count).
 * All parts from index 5 on other than the size are `extraParts`, in order.
 * Output: year as written; manufacturer, model and trim lowercased; dimensions in pixels from the
 * size part; on an invalid name the fields hold what could be read ('' or 0 otherwise) and
 * `isValid` is false. Never throws.
 */
export function parseAssetFilename(filename: string): ParsedFilename {
  const extension = fileExtension(filename);
  const dot = filename.lastIndexOf('.');
  const base = dot < 0 ? filename : filename.slice(0, dot);
  const parts = base.split('_');
  const sizeIndex = parts.findIndex((p, i) => i >= 5 && SIZE_PART.test(p));
  const size = sizeIndex >= 0 ? parts[sizeIndex]! : '';
  const m = SIZE_PART.exec(size);
  const [year = '', manufacturer = '', model = '', trim = ''] = parts.slice(1, 5);
  const isValid =
    parts.length >= 6 &&
    parts[0]!.toLowerCase() === 'new' &&
    m !== null &&
    [year, manufacturer, model, trim].every((p) => p.length > 0);
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

/**
 * Validates an asset filename for upload (spec 01 §5, §8; spec 02 §5).
 * Output: `{ ok: true, parsed }` for a valid name, else `{ ok: false, error, suggestion }` with
 * error TEXT.invalidFilename and suggestion TEXT.invalidFilenameHint. The extension itself is not
 * checked here (file type is checked on the bytes, DECISIONS 10, 13). A name longer than
 * MAX_FILENAME_LENGTH is refused with UPLOAD_TEXT.filenameTooLong before it is parsed.
 */
export function validateAssetFilename(
  filename: string,
): { ok: true; parsed: ParsedFilename } | { ok: false; error: string; suggestion: string } {
  if (filename.length > MAX_FILENAME_LENGTH) return { ok: false, error: UPLOAD_TEXT.filenameTooLong, suggestion: TEXT.invalidFilenameHint };
  const parsed = parseAssetFilename(filename);
  return parsed.isValid
    ? { ok: true, parsed }
    : { ok: false, error: TEXT.invalidFilename, suggestion: TEXT.invalidFilenameHint };
}
