/**
 * The `web` test project's environment (jsdom): what Mantine needs that jsdom lacks
 * (matchMedia, ResizeObserver, scrollIntoView), one MSW server that answers the app's API at the
 * fetch layer (tests add their handlers with `server.use`; an unhandled request fails the test),
 * and Testing Library's cleanup after each test.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { setupServer } from 'msw/node';

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
const { getComputedStyle } = window;
window.getComputedStyle = (element: Element) => getComputedStyle(element);

// findBy* and waitFor wait up to 5 s (Testing Library's 1 s is too short beside other suites on a 2-core machine).
configure({ asyncUtilTimeout: 5000 });

/** The API of the tests: add handlers per test with `server.use(http.get('/api/…', …))`. */
export const server = setupServer();

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
});
afterAll(() => server.close());
