// ESLint flat config: typescript-eslint recommended rules for all TypeScript, React hooks rules for the web app,
// and the import boundaries between the source areas (docs/ARCHITECTURE.md).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

/**
 * Import boundaries, as `no-restricted-imports` patterns on the import text. Areas are
 * reached by relative paths, so "leaves src/domain" is a `../` count per folder depth and "reaches
 * another area" is `../` steps followed by that area's folder name. Test files may reach across
 * (fixtures such as the seed catalogue, the server test checking the embed's slot plan); the
 * TypeScript projects (tsconfig.*.json) keep each area to its own globals.
 */
const reaches = (...areas) => ({
  regex: `^(\\.\\./)+(${areas.join('|')})(/|$)`,
  message: `No imports from src/${areas.join(' or src/')} here: share code through src/domain (docs/ARCHITECTURE.md, "Boundaries").`,
});
/** Packages only the browser app uses: domain code compiles in the server too. */
const DOM_ONLY_PACKAGES = ['react', 'react-*', 'react/**', 'react-dom/**', 'react-router/**', '@mantine/**', '@tanstack/**', 'lucide-react', 'recharts', 'vite', 'vite/**'];
/** src/domain: nothing of ours outside it, no Node built-ins, no browser-app packages (it runs in server, web and embed). */
const domainRules = (depth) => ({
  files: [`src/domain/${'*/'.repeat(depth - 1)}*.ts`],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': ['error', {
      paths: builtinModules.map((name) => ({ name, message: 'src/domain runs in server, web and embed: no Node built-ins.' })),
      patterns: [
        { regex: `^(\\.\\./){${depth}}`, message: 'src/domain imports nothing of ours outside src/domain.' },
        { group: ['node:*'], message: 'src/domain runs in server, web and embed: no Node built-ins.' },
        { group: DOM_ONLY_PACKAGES, message: 'src/domain runs in server, web and embed: no browser-app packages.' },
      ],
    }],
  },
});
/** A server feature (any folder of src/server but db/) reads demo facts from domain/demo.ts, never the seed module. */
const SEED_DATA = { regex: '(^|/)db/seed(-catalogue)?$', message: 'Server features do not import seed data: demo facts live in src/domain/demo.ts.' };

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'test-results/**', 'src/server/db/migrations/**', '.scratch/**', 'tests/fixtures/dealer-site/gtm.js' /* a template: the test fills in its placeholders */] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    files: ['src/server/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  domainRules(1),
  domainRules(2),
  domainRules(3),
  { files: ['src/web/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': ['error', { patterns: [reaches('server', 'embed')] }] } },
  { files: ['src/embed/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [reaches('server', 'web')] }] } },
  { files: ['src/server/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [reaches('web', 'embed')] }] } },
  {
    files: ['src/server/*/**/*.ts'],
    ignores: ['src/server/db/**', '**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [reaches('web', 'embed'), SEED_DATA] }] },
  },
  { files: ['src/server/**/*.test.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [reaches('web')] }] } },
  // `npm run bench` (a plain tsx script) imports these: vitest would throw outside its runner.
  {
    files: ['tests/e2e/harness.ts', 'tests/e2e/page-speed.ts', 'tests/fixtures/images.ts', 'scripts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vitest', message: 'npm run bench imports this file outside the vitest runner' }] }] },
  },
);
