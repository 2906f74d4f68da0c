/**
 * Image inspection with sharp (libvips): real format and dimensions from the bytes, with a full
 * decode so truncated or corrupt files are refused (DECISIONS 10-11, 13). Images over
 * MAX_IMAGE_PIXELS are refused from their header, before any decode, and the work
 * runs in the bounded image queue (image-queue.ts).
 */
import sharp from 'sharp';
import { MAX_IMAGE_PIXELS, TEXT } from '../../domain/constants';
import { Invalid } from '../errors';
import { runImageJob } from './image-queue';

export interface ImageInfo {
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
  width: number;
  height: number;
}

const MIME: Record<string, ImageInfo['mimeType']> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** The refusal for an image over MAX_IMAGE_PIXELS, naming its size and the limit. */
export function tooManyPixelsMessage(width: number, height: number): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  return `${TEXT.invalidFileTypeOrSize}: the image is ${width}x${height} (${fmt(width * height)} pixels); the limit is ${fmt(MAX_IMAGE_PIXELS)} pixels (${MAX_IMAGE_PIXELS / 1_000_000} MP)`;
}

/**
 * Reads the real type and size of an uploaded image.
 * @throws Invalid('Failed to read file: ...') when the bytes are not a decodable JPEG, PNG or WebP;
 * Invalid('Invalid file type or size: the image is WxH (...); the limit is 25,000,000 pixels (25 MP)')
 * when it has more than MAX_IMAGE_PIXELS pixels.
 */
export function inspectImage(bytes: Buffer): Promise<ImageInfo> {
  return runImageJob(async () => {
    try {
      // The header only (no pixel limit here: sharp would refuse without saying the size).
      const meta = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
      const mimeType = meta.format ? MIME[meta.format] : undefined;
      if (!mimeType || !meta.width || !meta.height) {
        throw new Invalid(`${TEXT.failedToReadFile}: the file is not a JPEG, PNG or WebP image`);
      }
      if (meta.width * meta.height > MAX_IMAGE_PIXELS) throw new Invalid(tooManyPixelsMessage(meta.width, meta.height));
      // Full decode, within the limit: catches truncated and corrupt image data.
      await sharp(bytes, { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS }).stats();
      return { mimeType, width: meta.width, height: meta.height };
    } catch (err) {
      if (err instanceof Invalid) throw err;
      throw new Invalid(`${TEXT.failedToReadFile}: the image data is corrupt or unreadable`);
    }
  });
}
