/**
 * The `web` test project's environment (jsdom): what Mantine needs that jsdom lacks
 * (matchMedia, ResizeObserver, scrollIntoView), one MSW server that answers the app's API at the
 * fetch layer (tests add their handlers with `server.use`; an unhandled request fails the test),
 * and Testing Library's cleanup after each test.
 * The project's files run one after another in one process and one jsdom (vitest.config.ts), and
 * vitest runs this file again before each of them while the modules it imports stay loaded: so
 * the MSW server lives in its own module (msw.ts), the one every file and helper (render.tsx)
 * talks to, and listens from the first file to the end of the process; each file's handlers
 * go after each test.
 */
import { afterEach, beforeAll } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { listenOnce, server } from './msw';

Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string): MediaQueryList =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList,
});

class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
window.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver;
window.HTMLElement.prototype.scrollIntoView = () => undefined;
// Mantine reads computed styles with a pseudo-element argument jsdom does not implement.
// Wrapped once per jsdom: this file runs again for each test file in the same window.
const wrapped = Symbol.for('dcb-test-getComputedStyle');
if (!(wrapped in window.getComputedStyle)) {
  const { getComputedStyle } = window;
  window.getComputedStyle = Object.assign((element: Element) => getComputedStyle(element), { [wrapped]: true });
}

// findBy* and waitFor wait up to 5 s (Testing Library's 1 s is too short beside other suites on a 2-core machine).
configure({ asyncUtilTimeout: 5000 });

/** The API of the tests (msw.ts): add handlers per test with `server.use(http.get('/api/…', …))`. */
export { server };

beforeAll(listenOnce);
afterEach(() => {
  cleanup();
  server.resetHandlers();
});
