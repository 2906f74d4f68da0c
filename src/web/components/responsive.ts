/** Screen-size checks of the web app (every screen usable at 390 px). */
import { useMediaQuery } from '@mantine/hooks';

/**
 * True below Mantine's `sm` breakpoint (48em, 768 px), where wide tables become lists of cards.
 * Read on the first render, so a phone never flashes the desktop layout.
 */
export function useNarrowScreen(): boolean {
  return useMediaQuery('(max-width: 47.99em)', undefined, { getInitialValueInEffect: false }) ?? false;
}
