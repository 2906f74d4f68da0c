/**
 * Builds the embed script and its inline snippet: src/embed/index.ts and src/embed/snippet.ts ->
 * one minified IIFE each per inventory provider, dist/embed/dc-banners.{provider}.js and
 * dist/embed/snippet.{provider}.js (embedBundleFile), each carrying only its provider's URL module
 * (src/embed/provider.ts is pointed at domain/providers/{provider}.ts), and prints their raw and
 * gzipped sizes. `npm run build:embed`.
 */
import { build, type Plugin } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROVIDERS, type Provider } from '../src/domain/schemas';
import { embedBundleFile } from '../src/server/scripts/service';

/** The base name the server's EMBED_DIST_FILE names; the bundles sit beside it. */
export const EMBED_OUT = path.resolve('dist/embed/dc-banners.js');
/** The inline snippet's base name (snippetFile in the server's scripts service). */
export const SNIPPET_OUT = path.resolve('dist/embed/snippet.js');

/** Resolves the embed's `./provider` import to the given provider's URL module. */
function providerModule(provider: Provider): Plugin {
  return {
    name: 'dc-banners-provider',
    setup(b) {
      b.onResolve({ filter: /^\.\/provider$/ }, (args) =>
        path.dirname(args.importer) === path.resolve('src/embed') ? { path: path.resolve(`src/domain/providers/${provider}.ts`) } : undefined,
      );
    },
  };
}

/** The entry points built per provider: the main script and the inline snippet, each beside EMBED_OUT. */
const ENTRIES = [
  { entry: 'src/embed/index.ts', base: EMBED_OUT },
  { entry: 'src/embed/snippet.ts', base: SNIPPET_OUT },
];

/** Bundles the script and the snippet for every provider; returns each file's size in bytes, raw and gzipped, by file. */
export async function buildEmbed(): Promise<Record<string, { bytes: number; gzipBytes: number }>> {
  const sizes: Record<string, { bytes: number; gzipBytes: number }> = {};
  for (const provider of PROVIDERS) {
    for (const { entry, base } of ENTRIES) {
      const outfile = embedBundleFile(base, provider);
      await build({
        entryPoints: [path.resolve(entry)],
        outfile,
        bundle: true,
        format: 'iife',
        minify: true,
        // Browsers of the last five years: optional chaining, ?? and ??= / ||= stay as written
        // (smaller than lowered; the script's replaceChildren needs as recent a browser anyway).
        target: 'es2021',
        // The banner record's internal fields get one-letter names (never JSON keys, never DOM names).
        mangleProps: /^(el|view|counted|loaded|inView|observer|timer|img)$/,
        platform: 'browser',
        legalComments: 'none',
        plugins: [providerModule(provider)],
        // The embed's own TypeScript project (tsconfig.json only lists the projects).
        tsconfig: 'tsconfig.embed.json',
      });
      const code = readFileSync(outfile);
      sizes[path.relative(process.cwd(), outfile)] = { bytes: code.length, gzipBytes: gzipSync(code).length };
    }
  }
  return sizes;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [file, { bytes, gzipBytes }] of Object.entries(await buildEmbed())) process.stdout.write(`embed: ${file} ${bytes} bytes, ${gzipBytes} bytes gzipped\n`);
}
