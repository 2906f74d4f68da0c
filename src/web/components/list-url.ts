/**
 * The URL state of a server-paginated list screen (the Dealers cards, the Platform Analytics
 * portfolio table): page, sort, filters and search live in the query string, so reload, Back and
 * a shared link keep them.
 */
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useDebouncedValue } from '@mantine/hooks';

/** How long typing must pause before the search reaches the URL (and the server), ms. */
const SEARCH_DEBOUNCE_MS = 300;

/** Keys to write into the URL: null or '' removes the key; page 1 is written as no page. */
export type UrlChanges = Record<string, string | number | null>;

/**
 * The list's query string, a writer for it and the search box's text.
 * @param readQ the search text the URL holds now (the screen's own parsing of `params`).
 * @returns `params`; `update(changes, push)` (`push` = true adds a history entry); `text`/`setText`
 *   for the search box: typed text goes to the URL as `q` (and page reset) once typing pauses, and a
 *   URL change from elsewhere (Back, Forward, a link) puts its text back in the box.
 */
export function useListUrl(readQ: (params: URLSearchParams) => string) {
  const [params, setParams] = useSearchParams();
  const update = (changes: UrlChanges, push = true) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null || value === '') next.delete(key);
          else next.set(key, String(value));
        }
        if (next.get('page') === '1') next.delete('page');
        return next;
      },
      { replace: !push },
    );
  const q = readQ(params);
  const [text, setText] = useState(q);
  const [debounced] = useDebouncedValue(text, SEARCH_DEBOUNCE_MS);
  useEffect(() => {
    if (debounced.trim() !== q) update({ q: debounced.trim() || null, page: null }, false);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when the typed text settles, not when the URL changes
  }, [debounced]);
  useEffect(() => {
    if (q !== debounced.trim()) setText(q);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when the URL changes, not while typing
  }, [q]);
  return { params, update, text, setText };
}
