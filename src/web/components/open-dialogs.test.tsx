/** The open-dialog count the toast host reads: a dialog counts while it is open, once, and stops counting when it closes. */
import { describe, expect, it } from 'vitest';
import { act, render, renderHook } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { registerOpenDialog, useDialogOpen } from './open-dialogs';
import { Modal } from './deferred';

describe('open dialogs', () => {
  it('counts each registration until its release, and a second release changes nothing', () => {
    const { result } = renderHook(() => useDialogOpen());
    expect(result.current).toBe(false);
    let a = () => {};
    let b = () => {};
    act(() => {
      a = registerOpenDialog();
      b = registerOpenDialog();
    });
    expect(result.current).toBe(true);
    act(() => {
      a();
      a();
    });
    expect(result.current).toBe(true);
    act(() => b());
    expect(result.current).toBe(false);
  });

  it('a Modal counts while opened, not while closed or gone', () => {
    const { result } = renderHook(() => useDialogOpen());
    const view = (opened: boolean) => (
      <MantineProvider>
        <Modal opened={opened} onClose={() => {}} title="Edit campaign">
          body
        </Modal>
      </MantineProvider>
    );
    const { rerender, unmount } = render(view(false));
    expect(result.current).toBe(false);
    rerender(view(true));
    expect(result.current).toBe(true);
    rerender(view(false));
    expect(result.current).toBe(false);
    rerender(view(true));
    expect(result.current).toBe(true);
    unmount();
    expect(result.current).toBe(false);
  });
});
