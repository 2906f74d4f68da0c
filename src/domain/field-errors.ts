/**
 * Validation messages in the user's words. The server refuses a bad value with a 400
 * whose message names each wrong field, "security.maxRequestsPerMinute: Invalid input: expected
 * int, received number; websiteUrl: must be a URL starting with http:// or https://"
 * (server/validation.ts); `parseFieldErrors` splits such a message into one entry per field path,
 * each rephrased by `inUserWords` ("Enter a whole number", "Must be at most 1,000").
 */

/** Field path (dot-separated, as the server names it) -> what is wrong, in the user's words. */
export type FieldErrors = Record<string, string>;

const FIELD = /^([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*): (.+)$/s;
const grouped = (n: string) => Number(n).toLocaleString('en-US');

/** One validation message (zod's default texts or the server's own 'must be ...') in plain words. */
export function inUserWords(message: string): string {
  const m = message.trim();
  let r: RegExpMatchArray | null;
  if (/expected int, received number/i.test(m)) return 'Enter a whole number';
  if (/expected number, received/i.test(m)) return 'Enter a number';
  if ((r = m.match(/Too big: expected number to be <=?\s*(-?[\d.]+)/i))) return `Must be at most ${grouped(r[1]!)}`;
  if ((r = m.match(/Too small: expected number to be >=?\s*(-?[\d.]+)/i))) return `Must be at least ${grouped(r[1]!)}`;
  if ((r = m.match(/Too big: expected string to have <=?\s*(\d+) characters/i))) return `At most ${grouped(r[1]!)} characters`;
  if (/Too small: expected string to have >=?\s*1 characters/i.test(m) || /^is required$/i.test(m)) return 'Required';
  if ((r = m.match(/Too small: expected string to have >=?\s*(\d+) characters/i))) return `At least ${grouped(r[1]!)} characters`;
  if ((r = m.match(/Too big: expected array to have <=?\s*(\d+) items/i))) return `At most ${grouped(r[1]!)} entries`;
  if (/Invalid option/i.test(m)) return 'Choose one of the listed options';
  if ((r = m.match(/(?:width|height) must be (\d+-\d+)/i))) return `Must be ${r[1]}`;
  if (/^Invalid (input|string)/i.test(m)) return 'This value is not valid';
  return m.charAt(0).toUpperCase() + m.slice(1);
}

/** The "path: problem" parts of a validation message, in the user's words ({} when it names no field). */
export function parseFieldErrors(message: string): FieldErrors {
  const out: FieldErrors = {};
  for (const part of message.split('; ')) {
    const m = part.match(FIELD);
    if (m && !(m[1]! in out)) out[m[1]!] = inUserWords(m[2]!);
  }
  return out;
}
