/**
 * First-load size of each web app route, from Vite's build manifest
 * (`dist/web/.vite/manifest.json`, written by `npm run build:web`).
 *
 * A route's first load is every JavaScript and CSS file the browser fetches to draw it on a cold
 * cache: the entry (`index.html`: React, Mantine's basics, the session gate) with its static
 * imports; for the sign-in screen also its own chunk (`auth/LoginPage.tsx`, which the session gate
 * fetches when signed out); for a signed-in screen the routed app (`App.tsx`), the shell
 * (`components/Shell.tsx`) and the screen's own module, each with its static imports. Chunks a
 * screen fetches only after it has painted (the toast host, charts, the dropzone, form validation,
 * dialogs) are not part of it. Sizes are gzip level 9 bytes, counted once per file.
 *
 * Budgets: sign-in ≤ 150 KB gzipped JavaScript, every other screen ≤ 200 KB (1 KB = 1,024 bytes).
 * `tsx scripts/web-budget.ts` prints the table and exits 1 when a budget is exceeded; `npm test`
 * runs it after the build, and `npm run bench` puts the table in docs/PERFORMANCE.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';

export const SIGN_IN_BUDGET_KB = 150;
export const SCREEN_BUDGET_KB = 200;

interface ManifestChunk {
  file: string;
  name?: string;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

export interface RouteSize {
  /** The screen module (manifest key, relative to src/web), or 'sign-in'. */
  route: string;
  jsBytes: number;
  cssBytes: number;
  budgetBytes: number;
}

/** Files (JS and CSS) that loading manifest entry `key` fetches, with its static imports. */
function closure(manifest: Manifest, key: string, into: Set<string>): Set<string> {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`web-budget: ${key} is not in the Vite manifest; run npm run build:web`);
  if (into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const css of chunk.css ?? []) into.add(css);
  for (const imported of chunk.imports ?? []) closure(manifest, imported, into);
  return into;
}

/**
 * The manifest key of a screen's chunk: its source path, or, when the chunk is also imported by a
 * chunk the screen loads later (a lazily loaded panel sharing its modules), the chunk's own key
 * (`_AssetManager-<hash>.js`), which Vite uses then; found by the chunk's name.
 */
function screenKey(manifest: Manifest, key: string): string {
  if (manifest[key]) return key;
  const name = path.basename(key, '.tsx');
  const found = Object.keys(manifest).filter((k) => manifest[k]!.isDynamicEntry && manifest[k]!.name === name);
  if (found.length !== 1) throw new Error(`web-budget: ${key} is not in the Vite manifest; run npm run build:web`);
  return found[0]!;
}

/**
 * First-load sizes of the sign-in screen and of every lazily loaded screen named in App.tsx.
 * @param webDir the built app (`dist/web`). @throws when the manifest is missing or stale.
 */
export function routeSizes(webDir = path.resolve('dist/web')): RouteSize[] {
  const manifest = JSON.parse(readFileSync(path.join(webDir, '.vite/manifest.json'), 'utf8')) as Manifest;
  const gz = new Map<string, number>();
  const size = (file: string) => {
    if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(path.join(webDir, file)), { level: 9 }).length);
    return gz.get(file)!;
  };
  const measure = (route: string, files: Set<string>, budgetBytes: number): RouteSize => {
    const list = [...files];
    const sum = (ext: string) => list.filter((f) => f.endsWith(ext)).reduce((n, f) => n + size(f), 0);
    return { route, jsBytes: sum('.js'), cssBytes: sum('.css'), budgetBytes };
  };
  const entry = closure(manifest, 'index.html', new Set());
  // The session gate (Root.tsx) fetches the sign-in screen when signed out and the routed app (App.tsx) when signed in.
  const signIn = closure(manifest, 'auth/LoginPage.tsx', new Set(entry));
  const appKey = manifest['index.html']?.dynamicImports?.find((k) => manifest[k]?.dynamicImports?.includes('components/Shell.tsx'));
  if (!appKey) throw new Error('web-budget: no chunk of the entry loads components/Shell.tsx (App.tsx); run npm run build:web');
  const app = closure(manifest, appKey, closure(manifest, 'components/Shell.tsx', new Set(entry)));
  const appSource = readFileSync(path.resolve('src/web/App.tsx'), 'utf8');
  const screens = [...appSource.matchAll(/import\('\.\/([^']+)'\)/g)].map((m) => `${m[1]}.tsx`).filter((k) => k !== 'components/Shell.tsx');
  return [
    measure('sign-in', signIn, SIGN_IN_BUDGET_KB * 1024),
    ...screens.map((key) => measure(key, closure(manifest, screenKey(manifest, key), new Set(app)), SCREEN_BUDGET_KB * 1024)),
  ];
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/** The sizes as a Markdown table (route, JS KB gz, CSS KB gz, budget, within). */
export function routeSizesMarkdown(rows: RouteSize[]): string {
  return [
    '| route (first load, cold cache) | JavaScript, KB gzipped | CSS, KB gzipped | JS budget | within |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.route} | ${kb(r.jsBytes)} | ${kb(r.cssBytes)} | ${kb(r.budgetBytes)} | ${r.jsBytes <= r.budgetBytes ? 'yes' : '**no**'} |`),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = routeSizes();
  process.stdout.write(`${routeSizesMarkdown(rows)}\n`);
  const over = rows.filter((r) => r.jsBytes > r.budgetBytes);
  if (over.length) {
    process.stderr.write(`web-budget: over budget: ${over.map((r) => `${r.route} ${kb(r.jsBytes)} KB > ${kb(r.budgetBytes)} KB`).join(', ')}\n`);
    process.exit(1);
  }
}
