/** File names cut in the middle: the end that tells A/B variants apart always shows. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { renderApp } from '../test/render';
import { FileName } from './Truncated';

const A = 'new_2026_honda_civic_sport_holiday_1920x300_a.jpg';
const B = 'new_2026_honda_civic_sport_holiday_1920x300_b.jpg';

afterEach(() => vi.restoreAllMocks());

describe('FileName', () => {
  it('keeps the distinguishing end of a cut name in view and gives the full name on hover', async () => {
    // jsdom lays nothing out: make every box narrower than its text, as in a narrow asset card.
    vi.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockReturnValue(300);
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(100);
    const { user } = renderApp(
      <>
        <FileName>{A}</FileName>
        <FileName>{B}</FileName>
      </>,
    );
    const names = await vi.waitFor(() => {
      const cut = [...document.querySelectorAll<HTMLElement>('[data-truncated="true"]')];
      expect(cut).toHaveLength(2);
      return cut;
    });
    expect(names.map((n) => n.textContent)).toEqual([A, B]);
    // The part that is never clipped: the last child, which does not shrink.
    const ends = names.map((n) => n.lastElementChild as HTMLElement);
    expect(ends.map((e) => e.style.flexShrink)).toEqual(['0', '0']);
    expect(ends[0]!.textContent).toMatch(/_a\.jpg$/);
    expect(ends[1]!.textContent).toMatch(/_b\.jpg$/);
    expect(ends[0]!.textContent).not.toBe(ends[1]!.textContent);

    // Hovered again until the deferred tooltip has arrived (the element stays the same).
    const second = names[1]!;
    await vi.waitFor(
      async () => {
        await user.unhover(second);
        await user.hover(second);
        expect((await screen.findByRole('tooltip')).textContent).toBe(B);
      },
      { timeout: 20_000, interval: 500 },
    );
  }, 60_000); // the tooltip arrives as a deferred chunk: slow on a busy 2-core machine
});
