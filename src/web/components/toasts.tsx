/**
 * The toast host: Mantine's `<Notifications>` with its transitions
 * (react-transition-group) is a chunk of its own, mounted once the first page has painted and the
 * browser is idle, or at once when a screen shows a toast before that (`notifications.show` only
 * writes to the small store module, which holds the toast until the host mounts). So no screen's
 * first load carries it. Once mounted it stays mounted, so toasts animate out as before.
 *
 * Toasts show where `position` says (the app: bottom right, away from the pages' actions, which sit
 * at the top), except while a modal dialog is open (open-dialogs.ts): a dialog's Save and Cancel
 * sit at its bottom, under a bottom toast (at phone widths a toast spans the whole bottom), so
 * toasts then show at the top centre, one at a time (the newest; older ones are dismissed: two
 * stacked toasts would reach the dialog's first field on a phone), over the dialog's title at most.
 * A toast shown while a dialog
 * is open keeps that place when the dialog closes (the usual "Saved" or "Deleted" toast of the
 * dialog's own action): moving it would animate it out of one corner and into another, two copies
 * on screen at once.
 */
import { lazy, Suspense, useEffect, useState, type ComponentProps } from 'react';
import { notifications as toastStore, useNotifications } from '@mantine/notifications';
import { useDialogOpen } from './open-dialogs';

const Notifications = lazy(async () => ({ default: (await import('./toasts-host')).Notifications }));

/** `<Notifications>` (same props), fetched after first paint, at the top centre while a dialog is open; see the module comment. */
export function DeferredNotifications(props: ComponentProps<typeof Notifications>) {
  const { notifications, queue } = useNotifications();
  const dialogOpen = useDialogOpen();
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (typeof window.requestIdleCallback === 'function') {
      const id = window.requestIdleCallback(() => setIdle(true), { timeout: 2000 });
      return () => window.cancelIdleCallback(id);
    }
    const timer = window.setTimeout(() => setIdle(true), 500);
    return () => window.clearTimeout(timer);
  }, []);
  useEffect(() => {
    if (!dialogOpen) return;
    for (const n of notifications.slice(0, -1)) toastStore.hide(n.id!);
    for (const n of notifications) if (!n.position) toastStore.update({ ...n, position: 'top-center' });
  }, [dialogOpen, notifications]);
  const wanted = idle || notifications.length > 0 || queue.length > 0;
  const [mounted, setMounted] = useState(false);
  if (wanted && !mounted) setMounted(true);
  if (!wanted && !mounted) return null;
  return (
    <Suspense fallback={null}>
      <Notifications {...props} position={dialogOpen ? 'top-center' : props.position} />
    </Suspense>
  );
}
