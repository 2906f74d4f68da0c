/** Page titles: every screen names itself in the browser tab, "Dealers · dc-banners". */
import { useEffect } from 'react';

/** The product name, last in every page title. */
export const APP_NAME = 'dc-banners';

/** Sets `document.title` to "{title} · dc-banners" (just "dc-banners" without a title). */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
}
