/**
 * Image inspection with sharp (libvips): real format and dimensions from the bytes, with a full
 * decode so truncated or corrupt files are refused (DECISIONS 10-11, 13).
 */
import sharp from 'sharp';
import { TEXT } from '../../domain/constants';
import { Invalid } from '../errors';

export interface ImageInfo {
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
  width: number;
  height: number;
}

const MIME: Record<string, ImageInfo['mimeType']> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/**
 * Reads the real type and size of an uploaded image.
 * @throws Invalid('Failed to read file: ...') when the bytes are not a decodable JPEG, PNG or WebP.
 */
export async function inspectImage(bytes: Buffer): Promise<ImageInfo> {
  try {
    const image = sharp(bytes, { failOn: 'error' });
    const meta = await image.metadata();
    const mimeType = meta.format ? MIME[meta.format] : undefined;
    if (!mimeType || !meta.width || !meta.height) {
      throw new Invalid(`${TEXT.failedToReadFile}: the file is not a JPEG, PNG or WebP image`);
    }
    await image.stats(); // full decode: catches truncated and corrupt image data
    return { mimeType, width: meta.width, height: meta.height };
  } catch (err) {
    if (err instanceof Invalid) throw err;
    throw new Invalid(`${TEXT.failedToReadFile}: the image data is corrupt or unreadable`);
  }
}
