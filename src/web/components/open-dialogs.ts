/**
 * How many modal dialogs are open right now (components/deferred Modal registers each while its
 * `opened` is true), for the toast host: a dialog keeps its actions (Save, Cancel) at its bottom,
 * where the page's toasts sit, so toasts move to the top while one is open (components/toasts.tsx).
 */
import { useSyncExternalStore } from 'react';

let open = 0;
const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};

/** Counts one open dialog until the returned function is called (once; later calls do nothing). */
export function registerOpenDialog(): () => void {
  open += 1;
  notify();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    open -= 1;
    notify();
  };
}

/** True while at least one dialog is open; re-renders the caller when that changes. */
export function useDialogOpen(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => open > 0,
    () => false,
  );
}
