/**
 * Sends render errors caught by an error boundary to the server's client error log
 * (POST /api/client-errors; spec 01 §2, §8: "This has been logged for debugging"). Called from the
 * React root's onCaughtError / onUncaughtError, so both the router's error screen and the
 * top-level ErrorBoundary report, with React's component stack. Never throws; at most
 * MAX_REPORTS per page load, so a render loop cannot flood the log (the server allows 10 a minute
 * per user). The server keeps a report in the admin's Client Error Log only for a
 * signed-in session; one sent while signed out (the sign-in screen) is answered 204 like any other
 * and written to the server log only, so the browser console shows no failed request either way.
 */
const MAX_REPORTS = 5;
let sent = 0;

export function reportClientError(error: unknown, componentStack?: string | null): void {
  if (sent >= MAX_REPORTS) return;
  sent += 1;
  try {
    const e = error instanceof Error ? error : new Error(typeof error === 'string' ? error : JSON.stringify(error));
    const body = JSON.stringify({
      message: e.message || e.name || 'Unknown error',
      stack: e.stack ?? null,
      componentStack: componentStack ?? null,
      url: location.href,
    });
    void fetch('/api/client-errors', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, credentials: 'same-origin', keepalive: true }).catch(() => undefined);
  } catch {
    /* reporting must never break the error screen */
  }
}
