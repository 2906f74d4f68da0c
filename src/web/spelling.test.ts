/**
 * The web app speaks American English: its screens say "color", "catalog", "Inventory Optimized",
 * "labeled", "recognized" and "organize", so no screen may say the British form of those words.
 * Reads every component (.tsx, tests aside) under src/web without its import lines and comments
 * (comments are not shown to anyone) and names each file and word it finds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const WEB = path.dirname(fileURLToPath(import.meta.url));

/** British forms of words the screens spell the American way (whole words, any case). */
const BRITISH = /\b(colour(s|ed|ing|ful)?|catalogues?|optimis(e|es|ed|ing|ation)|recognis(e|es|ed|ing)|organis(e|es|ed|ing|ations?)|labell(ed|ing))\b/gi;

/** A file's text without its import lines, block comments and line comments (a URL's `//` is kept). */
function shownText(source: string): string {
  return source
    .replace(/^\s*import\s[^;]*;/gm, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

const files = readdirSync(WEB, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.tsx') && !f.endsWith('.test.tsx'))
  .sort();

describe('American spelling in the web app', () => {
  it('finds components to read', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('has no British spelling of a word the screens spell the American way', () => {
    const found = files.flatMap((f) => [...shownText(readFileSync(path.join(WEB, f), 'utf8')).matchAll(BRITISH)].map((m) => `${f}: ${m[0]}`));
    expect(found).toEqual([]);
  });

  it('the check itself: finds a British form in text, not in an import or a comment', () => {
    const sample = `import { colour } from './colour';\n// the colour of it\n/* a catalogue */\nconst a = <Text>Pick a colour from the catalogue; labelled, optimised</Text>;\nconst b = 'aria-labelledby';`;
    expect([...shownText(sample).matchAll(BRITISH)].map((m) => m[0])).toEqual(['colour', 'catalogue', 'labelled', 'optimised']);
  });
});
