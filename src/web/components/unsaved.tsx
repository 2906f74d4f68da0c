/**
 * The unsaved-changes prompt of the editing screens: while `dirty`,
 * leaving the page inside the app (a link, the sidebar, Back) is held by the router's blocker and
 * asks 'Leave without saving?' (Stay on this page / Leave without saving), and reloading or closing
 * the tab asks the browser's own question (`beforeunload`). Needs the data router (App.tsx,
 * createBrowserRouter). Changes of the query string or hash on the same page are not held.
 */
import { useEffect, type ReactElement } from 'react';
import { useBlocker } from 'react-router';
import { Button, Group, Stack, Text } from '@mantine/core';
import { Modal } from './deferred';

/** Holds navigation while `dirty`; returns the prompt to render (anywhere in the screen). */
export function useUnsavedChangesPrompt(dirty: boolean): ReactElement {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  // Saved (or undone) while the prompt is open: nothing left to lose, so go on.
  useEffect(() => {
    if (blocker.state === 'blocked' && !dirty) blocker.proceed();
  }, [blocker, dirty]);

  return (
    <Modal opened={blocker.state === 'blocked'} onClose={() => blocker.reset?.()} title="Leave without saving?" centered zIndex={400}>
      <Stack>
        <Text size="sm">You have unsaved changes on this page. If you leave now, they are lost.</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => blocker.reset?.()} data-autofocus>
            Stay on this page
          </Button>
          <Button color="red" onClick={() => blocker.proceed?.()}>
            Leave without saving
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
