/** The toast host: toasts move to the top centre while a dialog is open, and one shown then stays there once it closes. */
import { describe, expect, it } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { DeferredNotifications } from './toasts';
import { registerOpenDialog } from './open-dialogs';

const corner = (text: string) => screen.getAllByText(text).map((el) => el.closest('[data-position]')?.getAttribute('data-position'));

describe('toast host', () => {
  it("keeps a toast shown over a dialog at the top centre when the dialog closes: one copy, no move", async () => {
    render(
      <MantineProvider>
        <DeferredNotifications position="bottom-right" />
      </MantineProvider>,
    );
    let close = () => {};
    act(() => void (close = registerOpenDialog()));
    act(() => void notifications.show({ message: 'Short Lived Motors deleted', autoClose: false }));
    await waitFor(() => expect(corner('Short Lived Motors deleted')).toEqual(['top-center']));
    act(() => close());
    act(() => void notifications.show({ message: 'Saved after the dialog', autoClose: false }));
    await waitFor(() => expect(corner('Saved after the dialog')).toEqual(['bottom-right']));
    expect(corner('Short Lived Motors deleted')).toEqual(['top-center']);
    act(() => notifications.clean());
  });

  it('shows one toast at a time while a dialog is open: the newest', async () => {
    render(
      <MantineProvider>
        <DeferredNotifications position="bottom-right" />
      </MantineProvider>,
    );
    act(() => void notifications.show({ message: 'Campaign paused', autoClose: false }));
    act(() => void notifications.show({ message: 'Campaign resumed', autoClose: false }));
    await waitFor(() => expect(corner('Campaign paused')).toEqual(['bottom-right']));
    let close = () => {};
    act(() => void (close = registerOpenDialog()));
    await waitFor(() => expect(screen.queryByText('Campaign paused')).toBeNull());
    expect(corner('Campaign resumed')).toEqual(['top-center']);
    act(() => void notifications.show({ message: 'Campaign saved', autoClose: false }));
    await waitFor(() => expect(screen.queryByText('Campaign resumed')).toBeNull());
    expect(corner('Campaign saved')).toEqual(['top-center']);
    act(() => close());
    act(() => notifications.clean());
  });
});
