/**
 * `npm run docs:api`: builds the app on an in-memory database (as the tests do), asks it for its
 * OpenAPI document (GET /api/openapi.json as an admin) and writes docs/API.md from it
 * (scripts/api-doc.ts). `--check` writes nothing and exits 1 when docs/API.md is stale
 * (src/server/openapi.test.ts makes the same check inside `npm test`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createTestApp } from '../src/server/test-app';
import { DEMO_ACCOUNTS } from '../src/server/db/seed';
import { renderApiDoc } from './api-doc';

const TARGET = 'docs/API.md';

const t = await createTestApp();
try {
  const admin = await t.login(DEMO_ACCOUNTS[0]!.email, DEMO_ACCOUNTS[0]!.password);
  const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { cookie: admin } });
  if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
  const text = await renderApiDoc(res.json());
  if (process.argv.includes('--check')) {
    const current = await readFile(TARGET, 'utf8').catch(() => '');
    if (current !== text) {
      process.stderr.write(`${TARGET} is stale: run npm run docs:api\n`);
      process.exitCode = 1;
    }
  } else {
    await writeFile(TARGET, text);
    process.stdout.write(`wrote ${TARGET}\n`);
  }
} finally {
  await t.close();
}
