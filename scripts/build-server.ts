/**
 * Compiles the server: src/server/main.ts and everything it imports from src/ ->
 * one ES module, dist/server/main.js (esbuild, Node 20, source map), with npm packages left as
 * imports (resolved from node_modules at run time, so `npm ci --omit=dev` is enough to run it), and
 * the SQL migrations copied beside it (dist/server/migrations, where db/client.ts looks for them).
 * Writes dist/server/packages.json: the npm packages the bundle imports (the e2e test checks they
 * are all production dependencies). Also compiles the first-admin command, scripts/admin-create.ts,
 * to dist/server/admin-create.js. `npm run build:server`.
 */
import { build } from 'esbuild';
import { builtinModules } from 'node:module';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The compiled server's entry. */
export const SERVER_OUT = path.resolve('dist/server/main.js');

/** The package name of a bare import (`pg`, `@fastify/static`, `drizzle-orm/pglite` -> `drizzle-orm`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Bundles the server and copies its migrations; returns the bundle's size and the packages it imports. */
export async function buildServer(): Promise<{ bytes: number; packages: string[] }> {
  const outDir = path.dirname(SERVER_OUT);
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.resolve('src/server/main.ts')],
    outfile: SERVER_OUT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    // The server's own TypeScript project (tsconfig.json only lists the projects).
    tsconfig: 'tsconfig.server.json',
  });
  // The first-admin command (scripts/admin-create.ts) for installs without tsx; beside main.js, so
  // it finds the same migrations folder.
  await build({
    entryPoints: [path.resolve('scripts/admin-create.ts')],
    outfile: path.join(outDir, 'admin-create.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: 'tsconfig.server.json',
  });
  cpSync(path.resolve('src/server/db/migrations'), path.join(outDir, 'migrations'), { recursive: true });
  const builtins = new Set(builtinModules);
  const packages = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      // Bare package imports only (esbuild's metafile may also list a bundled relative import as external).
      if (!imported.external || /^(node:|\.|\/)/.test(imported.path) || builtins.has(imported.path)) continue;
      packages.add(packageOf(imported.path));
    }
  }
  const sorted = [...packages].sort();
  writeFileSync(path.join(outDir, 'packages.json'), `${JSON.stringify(sorted, null, 2)}\n`);
  return { bytes: result.metafile.outputs[path.relative(process.cwd(), SERVER_OUT)]?.bytes ?? 0, packages: sorted };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { bytes, packages } = await buildServer();
  process.stdout.write(`server: ${path.relative(process.cwd(), SERVER_OUT)} ${bytes} bytes, imports ${packages.join(', ')}\n`);
}
