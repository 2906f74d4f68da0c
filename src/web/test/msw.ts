/**
 * The `web` tests' one MSW server (setup.ts): answers the app's API at the fetch layer in jsdom,
 * an unhandled request failing the test. One per test process, which runs the project's files one
 * after another (vitest.config.ts): a module loaded once, so a file, and the helpers loaded
 * before it (render.tsx), add their handlers to the server that answers.
 */
import { setupServer } from 'msw/node';

/** The API of the tests: add handlers per test with `server.use(http.get('/api/…', …))`. */
export const server = setupServer();

let listening = false;

/** Starts intercepting (unhandled requests are errors) unless an earlier test file already did. */
export function listenOnce(): void {
  if (listening) return;
  server.listen({ onUnhandledRequest: 'error' });
  listening = true;
}
