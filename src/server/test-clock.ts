/**
 * The e2e tests' server clock (a scheduled asset appears on the
 * dealer page only inside its window, proven by moving the server's clock instead of sleeping).
 * With TEST_CLOCK_FILE set (refused when NODE_ENV=production, config.ts), `app.now` is the instant
 * written in that file (ISO 8601), frozen until the file changes; an empty, missing or unreadable
 * file means the real clock. Only app.now moves: sessions, rate limits and cache TTLs keep real time.
 */
import { readFileSync, statSync } from 'node:fs';

/** app.now read from `file` (see module doc); the file is re-read only when its modification time or size changes. */
export function fileClock(file: string): () => Date {
  let seen = '';
  let pinned: number | null = null;
  return () => {
    try {
      const st = statSync(file);
      const stamp = `${st.mtimeMs}|${st.size}`;
      if (stamp !== seen) {
        seen = stamp;
        const ms = Date.parse(readFileSync(file, 'utf8').trim());
        pinned = Number.isNaN(ms) ? null : ms;
      }
    } catch {
      seen = '';
      pinned = null;
    }
    return pinned === null ? new Date() : new Date(pinned);
  };
}
