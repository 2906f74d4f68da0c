/**
 * The deferred Tooltip (deferred.tsx): its target stays the element first rendered when Mantine's
 * tooltip arrives, so keyboard focus survives; the tooltip opens on keyboard focus and on hover,
 * names its text through aria-describedby while open, closes on Escape, and never opens disabled.
 */
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderApp } from '../test/render';
import { Tooltip } from './deferred';

describe('the deferred Tooltip', () => {
  it('keeps its focused target element when the tooltip arrives, and describes it while open', async () => {
    const { user } = renderApp(
      <Tooltip label="Honda of Springfield Metropolitan Area">
        <button type="button">Honda of Springfield…</button>
      </Tooltip>,
    );
    const button = await screen.findByRole('button', { name: 'Honda of Springfield…' });
    // Focused by keyboard at once, before the tooltip's chunk has arrived.
    await user.tab();
    expect(document.activeElement).toBe(button);
    const tooltip = await screen.findByRole('tooltip', {}, { timeout: 20_000 });
    expect(tooltip.textContent).toBe('Honda of Springfield Metropolitan Area');
    // The very element rendered first, still in the page and still focused.
    expect(screen.getByRole('button', { name: 'Honda of Springfield…' })).toBe(button);
    expect(button.isConnected).toBe(true);
    expect(document.activeElement).toBe(button);
    expect(document.getElementById(button.getAttribute('aria-describedby') ?? '')?.textContent).toBe('Honda of Springfield Metropolitan Area');

    await user.keyboard('{Escape}');
    await expect.poll(() => screen.queryByRole('tooltip')).toBeNull();
    expect(button.getAttribute('aria-describedby')).toBeNull();
    expect(document.activeElement).toBe(button);

    await user.tab();
    await user.hover(button);
    expect((await screen.findByRole('tooltip')).textContent).toBe('Honda of Springfield Metropolitan Area');
    await user.unhover(button);
    await expect.poll(() => screen.queryByRole('tooltip')).toBeNull();
  }, 60_000); // the tooltip arrives as a deferred chunk: slow on a busy 2-core machine

  it('opens neither on hover nor on focus while disabled', async () => {
    const { user } = renderApp(
      <>
        <Tooltip label="Arrived">
          <button type="button">enabled</button>
        </Tooltip>
        <Tooltip label="Never shown" disabled>
          <button type="button">disabled</button>
        </Tooltip>
      </>,
    );
    // The tooltip's chunk is in once the enabled one shows on hover.
    const enabled = await screen.findByRole('button', { name: 'enabled' });
    await user.hover(enabled);
    expect((await screen.findByRole('tooltip', {}, { timeout: 20_000 })).textContent).toBe('Arrived');
    await user.unhover(enabled);
    await expect.poll(() => screen.queryByRole('tooltip')).toBeNull();
    const disabled = screen.getByRole('button', { name: 'disabled' });
    await user.hover(disabled);
    await user.click(disabled);
    await user.keyboard('{Shift>}{Tab}{/Shift}{Tab}');
    expect(document.activeElement).toBe(disabled);
    // The enabled one opens again: by then the disabled one would have shown too.
    await user.hover(enabled);
    expect((await screen.findByRole('tooltip')).textContent).toBe('Arrived');
    expect(screen.queryByText('Never shown')).toBeNull();
    expect(disabled.getAttribute('aria-describedby')).toBeNull();
  }, 60_000);
});
