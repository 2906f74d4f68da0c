/**
 * Builds the embed script: src/embed/index.ts -> dist/embed/dc-banners.js (one minified IIFE, no
 * dependencies) and prints its raw and gzipped size. `npm run build:embed`.
 */
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const EMBED_OUT = path.resolve('dist/embed/dc-banners.js');

/** Bundles the script; returns its size in bytes, raw and gzipped. */
export async function buildEmbed(): Promise<{ bytes: number; gzipBytes: number }> {
  await build({
    entryPoints: [path.resolve('src/embed/index.ts')],
    outfile: EMBED_OUT,
    bundle: true,
    format: 'iife',
    minify: true,
    target: 'es2018',
    platform: 'browser',
    legalComments: 'none',
  });
  const code = readFileSync(EMBED_OUT);
  return { bytes: code.length, gzipBytes: gzipSync(code).length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { bytes, gzipBytes } = await buildEmbed();
  process.stdout.write(`embed: ${EMBED_OUT} ${bytes} bytes, ${gzipBytes} bytes gzipped\n`);
}
