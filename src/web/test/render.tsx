/**
 * Renders a piece of the web app as main.tsx does (Mantine theme, TanStack Query, the session,
 * a router; Mantine in its test mode: no transitions, no portals) for the `web` tests, with the signed-in user answered by the MSW server's
 * GET /api/auth/me. `userEvent` is set up per render; query the page with Testing Library's `screen`.
 */
import { useState, type ReactElement, type ReactNode } from 'react';
import { render } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { http, HttpResponse } from 'msw';
import type { Role, SessionUser } from '../../domain/schemas';
import { AuthProvider } from '../components/auth';
import { theme } from '../theme';
import { server } from './setup';

/** A signed-in user of `role` (a dealer role belongs to dealer `honda-of-demo`). */
export function userOf(role: Role): SessionUser {
  const dealer = role === 'admin' ? null : 'honda-of-demo';
  return { id: `user-${role}`, email: `${role}@example.com`, name: `A ${role}`, role, dealerId: dealer, dealerName: dealer && 'Honda of Demo' };
}

/** The providers of the app around `children`, signed in as `user` (null: signed out). */
function Providers({ children, user, client, route }: { children: ReactNode; user: SessionUser | null; client: QueryClient; route?: Route }) {
  server.use(http.get('/api/auth/me', () => HttpResponse.json({ user })));
  // A data router, as App.tsx's: screens hold navigation while a form has unsaved edits (useBlocker).
  const [router] = useState(() => createMemoryRouter([{ path: route?.path ?? '*', element: children }], route && { initialEntries: [route.url] }));
  return (
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={client}>
        <AuthProvider>
          <RouterProvider router={router} />
        </AuthProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}

/** A screen's route pattern and the address opened on it, for screens that read their parameters. */
interface Route {
  path: string;
  url: string;
}

/** `ui` rendered in the app's providers, signed in as `user` (an admin by default), at `route` (any address by default). */
export function renderApp(ui: ReactElement, { user = userOf('admin'), route }: { user?: SessionUser | null; route?: Route } = {}): { user: UserEvent; unmount: () => void } {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const events = userEvent.setup({ delay: null });
  const { unmount } = render(ui, { wrapper: ({ children }) => <Providers user={user} client={client} route={route}>{children}</Providers> });
  return { user: events, unmount };
}
