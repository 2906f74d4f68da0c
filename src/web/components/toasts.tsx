/**
 * The toast host: Mantine's `<Notifications>` with its transitions
 * (react-transition-group) is a chunk of its own, mounted once the first page has painted and the
 * browser is idle, or at once when a screen shows a toast before that (`notifications.show` only
 * writes to the small store module, which holds the toast until the host mounts). So no screen's
 * first load carries it. Once mounted it stays mounted, so toasts animate out as before.
 */
import { lazy, Suspense, useEffect, useState, type ComponentProps } from 'react';
import { useNotifications } from '@mantine/notifications';

const Notifications = lazy(async () => ({ default: (await import('./toasts-host')).Notifications }));

/** `<Notifications>` (same props), fetched after first paint; see the module comment. */
export function DeferredNotifications(props: ComponentProps<typeof Notifications>) {
  const { notifications, queue } = useNotifications();
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (typeof window.requestIdleCallback === 'function') {
      const id = window.requestIdleCallback(() => setIdle(true), { timeout: 2000 });
      return () => window.cancelIdleCallback(id);
    }
    const timer = window.setTimeout(() => setIdle(true), 500);
    return () => window.clearTimeout(timer);
  }, []);
  const wanted = idle || notifications.length > 0 || queue.length > 0;
  const [mounted, setMounted] = useState(false);
  if (wanted && !mounted) setMounted(true);
  if (!wanted && !mounted) return null;
  return (
    <Suspense fallback={null}>
      <Notifications {...props} />
    </Suspense>
  );
}
