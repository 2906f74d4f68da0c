/**
 * CDN auto-discovery answers (DECISIONS 14 b): whether a dealer's CDN serves an image at a URL,
 * found out by a HEAD request in the background and cached, so banner delivery never waits on a
 * third-party server. The first request for a URL starts the probe and gets the next choice
 * (fallback or placeholder); once the CDN has answered with an image, requests redirect to it.
 * Answers are kept 1 hour when found and 10 minutes when not, then probed again (the old answer
 * stands meanwhile). Base URLs are set by admins only (dealer settings).
 */

const FOUND_TTL_MS = 3_600_000;
const MISSING_TTL_MS = 600_000;
const PROBE_TIMEOUT_MS = 3000;
const MAX_ENTRIES = 10_000;

interface Entry {
  ok: boolean;
  at: number;
  pending?: Promise<void>;
}

const answers = new Map<string, Entry>();

async function probe(url: string, entry: Entry): Promise<void> {
  let ok = false;
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    ok = res.ok && (res.headers.get('content-type') ?? '').toLowerCase().startsWith('image/');
  } catch {
    ok = false;
  }
  entry.ok = ok;
  entry.at = Date.now();
  entry.pending = undefined;
}

/**
 * The cached answer for `url` (false while unknown); starts a background probe when there is no
 * answer yet or it has expired.
 */
export function cdnServes(url: string, now = Date.now()): boolean {
  let entry = answers.get(url);
  if (!entry) {
    if (answers.size >= MAX_ENTRIES) answers.clear();
    entry = { ok: false, at: 0 };
    answers.set(url, entry);
  }
  const ttl = entry.ok ? FOUND_TTL_MS : MISSING_TTL_MS;
  if (!entry.pending && now - entry.at >= ttl) entry.pending = probe(url, entry);
  return entry.ok;
}

/** Waits for every probe in flight (tests, and graceful shutdown). */
export async function settleCdnProbes(): Promise<void> {
  await Promise.all([...answers.values()].map((e) => e.pending));
}

/** Forgets every answer (tests). */
export function clearCdnProbes(): void {
  answers.clear();
}
