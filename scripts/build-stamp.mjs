/**
 * The build stamp: dist/.build-stamp.json records a SHA-256 of every input of
 * `npm run build` (the sources under src/ but tests, the build scripts and configs, and the
 * lockfile), so `npm start` (scripts/start.mjs) builds only when dist/ is missing or was built
 * from other sources, and starts in about a second otherwise. Plain JavaScript: it runs where only
 * production dependencies are installed. `node scripts/build-stamp.mjs` writes the stamp (the last
 * step of `npm run build`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is in scripts/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files outside src/ that change what the build makes. */
const EXTRA_INPUTS = [
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.server.json',
  'tsconfig.web.json',
  'tsconfig.embed.json',
  'vite.config.ts',
  'postcss.config.cjs',
  'scripts/build-embed.ts',
  'scripts/build-server.ts',
  'scripts/admin-create.ts',
];

/** Outputs that must exist for dist/ to count as built. */
export const BUILD_OUTPUTS = ['dist/server/main.js', 'dist/web/index.html', 'dist/embed'];

/** Where the stamp is written. */
export const STAMP_FILE = 'dist/.build-stamp.json';

/** True for files of src/ that are not build inputs: tests. */
const isTest = (file) => /\.test\.[cm]?[jt]sx?$/.test(file);

/** Every build input under `root`, relative, sorted (see module doc). */
export function buildInputs(root = ROOT) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && !isTest(entry.name)) files.push(rel);
    }
  };
  walk('src');
  for (const file of EXTRA_INPUTS) if (existsSync(path.join(root, file))) files.push(file);
  return files.sort();
}

/** SHA-256 (hex) over every build input's path and bytes. */
export function sourcesHash(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of buildInputs(root)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The stamp of the last complete build, or null. */
export function readStamp(root = ROOT) {
  try {
    return JSON.parse(readFileSync(path.join(root, STAMP_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** Writes the stamp for the sources as they are now. */
export function writeStamp(root = ROOT) {
  const stamp = { sources: sourcesHash(root), builtAt: new Date().toISOString() };
  writeFileSync(path.join(root, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  return stamp;
}

/**
 * Whether `npm start` must build first.
 * @returns { build: false } when every output exists and the stamp matches the sources; else
 *   { build: true, reason } with 'dist/ is missing' or 'the sources changed since the last build'.
 */
export function buildDecision(root = ROOT) {
  const missing = BUILD_OUTPUTS.find((out) => !existsSync(path.join(root, out)));
  if (missing) return { build: true, reason: `dist/ is missing (${missing})` };
  const stamp = readStamp(root);
  if (!stamp) return { build: true, reason: `dist/ has no build stamp (${STAMP_FILE})` };
  if (stamp.sources !== sourcesHash(root)) return { build: true, reason: 'the sources changed since the last build' };
  return { build: false, reason: `dist/ is up to date (built ${stamp.builtAt})` };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const stamp = writeStamp();
  process.stdout.write(`build stamp: ${STAMP_FILE} ${stamp.sources.slice(0, 12)}\n`);
}
