/**
 * `npm start`: runs the compiled server, dist/server/main.js, with plain node, after
 * building it (`npm run build`: web app, embed scripts, server) only when dist/ is missing or was
 * built from other sources (scripts/build-stamp.mjs). A fresh clone still needs only
 * `npm ci && npm start`; a restart of a built tree takes about a second. Where only production
 * dependencies are installed (`npm ci --omit=dev`) nothing can be built: a built dist/ is started
 * as it is (with a warning when its stamp does not match the sources), a missing one is an error.
 * The server runs in this process (cluster workers too, WORKERS > 1: they skip the check).
 */
import cluster from 'node:cluster';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, buildDecision } from './build-stamp.mjs';

const SERVER = path.join(ROOT, 'dist/server/main.js');

/** True when the build tools (devDependencies: vite, tsx, esbuild) are installed. */
function canBuild() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  try {
    for (const tool of ['vite/package.json', 'tsx/package.json', 'esbuild/package.json']) require.resolve(tool);
    return true;
  } catch {
    return false;
  }
}

const say = (line) => process.stderr.write(`dc-banners start: ${line}\n`);

if (cluster.isPrimary) {
  const started = performance.now();
  const decision = buildDecision(ROOT);
  if (!decision.build) {
    say(`${decision.reason}; not building`);
  } else if (!canBuild()) {
    if (decision.reason.startsWith('dist/ is missing')) {
      say(`${decision.reason}, and the build tools (devDependencies) are not installed: run \`npm ci\` and \`npm run build\`, or deploy a built dist/`);
      process.exit(1);
    }
    say(`${decision.reason}, but the build tools (devDependencies) are not installed: starting the existing build`);
  } else {
    say(`building: ${decision.reason}`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = spawnSync(npm, ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (result.status !== 0) {
      say(`the build failed (exit ${result.status ?? result.signal})`);
      process.exit(1);
    }
    say(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

await import(pathToFileURL(SERVER).href);
