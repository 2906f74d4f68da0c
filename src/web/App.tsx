/**
 * Routes of the signed-in web app (spec 01 §2, spec 02 §2; the session gate is in Root.tsx):
 * '/' by role, the admin area for admins only (every /admin/* path, known or not: other users go
 * to /dealer), the dealer area, the dealer script page, and 'Page Not Found'. Route render errors
 * show the 'Something went wrong' screen, or a reload prompt when a screen's code failed to load. Each screen names itself in `document.title`
 * ("Dealers · dc-banners") through its route's `handle.title`.
 */
import { createBrowserRouter, Link, Navigate, Outlet, RouterProvider, useMatches, useRouteError } from 'react-router';
import { useEffect, type ComponentType } from 'react';
import { useAuth } from './components/auth';
import { useDocumentTitle } from './components/title';
import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { SearchX } from 'lucide-react';
import { TEXT } from '../domain/constants';
import { ErrorScreen, LoadingScreen } from './components/feedback';
import { ChunkReloadPrompt, isChunkLoadError, retryChunk } from './components/chunks';

/** The title of the deepest matched route that has one (`handle: { title }`). */
function RouteTitle() {
  const matches = useMatches();
  const titled = matches.filter((m) => typeof (m.handle as { title?: unknown } | undefined)?.title === 'string');
  useDocumentTitle((titled.at(-1)?.handle as { title: string } | undefined)?.title);
  return null;
}

/** Root of the signed-in app: the tab title of the matched route, then the route's screen. */
function TitledOutlet() {
  return (
    <>
      <RouteTitle />
      <Outlet />
    </>
  );
}

/** 'Page Not Found' with a link home. */
function NotFoundPage() {
  return (
    <Center mih="60vh" p="xl">
      <Stack align="center" gap="sm">
        <SearchX size={48} strokeWidth={1.5} />
        <Title order={2}>{TEXT.pageNotFound}</Title>
        <Text c="dimmed">{TEXT.pageNotFoundBody}</Text>
        <Button component={Link} to="/">
          Go Home
        </Button>
      </Stack>
    </Center>
  );
}

function HomeRedirect() {
  const { user } = useAuth();
  return <Navigate to={user?.role === 'admin' ? '/admin' : '/dealer'} replace />;
}

function AdminOnly() {
  const { user } = useAuth();
  return user?.role === 'admin' ? <Outlet /> : <Navigate to="/dealer" replace />;
}

/** A route's render error: the 'Something went wrong' screen, or the reload prompt when the screen's code did not load. */
function RouteError() {
  const error = useRouteError();
  const chunk = isChunkLoadError(error);
  useEffect(() => console.error('Route error', error), [error]);
  useDocumentTitle(chunk ? 'Reload needed' : 'Something went wrong');
  return chunk ? <ChunkReloadPrompt /> : <ErrorScreen />;
}

const title = (t: string) => ({ title: t });

/**
 * Route-level code splitting: a screen's module, with its charts, dropzone and their
 * CSS, is fetched when its route is first visited, so the sign-in screen and the shell load only
 * what they draw; a failed fetch is tried once more (retryChunk). Returns React Router's `lazy`
 * function for the module's export `name`.
 */
function screen<M extends Record<K, ComponentType>, K extends keyof M & string>(load: () => Promise<M>, name: K) {
  const loadOnce = retryChunk(load);
  return async () => ({ Component: (await loadOnce())[name] });
}

const router = createBrowserRouter([
  {
    element: <TitledOutlet />,
    errorElement: <RouteError />,
    hydrateFallbackElement: <LoadingScreen />,
    children: [
      { path: '/', element: <HomeRedirect /> },
      {
        lazy: screen(() => import('./components/Shell'), 'Shell'),
        children: [
          {
            path: '/admin',
            element: <AdminOnly />,
            children: [
              { index: true, lazy: screen(() => import('./admin/AdminDashboard'), 'AdminDashboard'), handle: title('Admin Dashboard') },
              { path: 'dealers', lazy: screen(() => import('./admin/DealersPage'), 'DealersPage'), handle: title('Dealers') },
              { path: 'dealers/new', lazy: screen(() => import('./admin/NewDealerPage'), 'NewDealerPage'), handle: title('Add Dealer') },
              { path: 'dealers/:dealerId/analytics', lazy: screen(() => import('./admin/DealerAnalyticsPage'), 'DealerAnalyticsPage'), handle: title('Dealer Analytics') },
              { path: 'dealers/:dealerId/settings', lazy: screen(() => import('./admin/DealerSettingsPage'), 'DealerSettingsPage'), handle: title('Dealer Settings') },
              { path: 'manufacturers', lazy: screen(() => import('./admin/ManufacturersPage'), 'ManufacturersPage'), handle: title('Manufacturers') },
              { path: 'analytics', lazy: screen(() => import('./admin/PlatformAnalyticsPage'), 'PlatformAnalyticsPage'), handle: title('Platform Analytics') },
              { path: 'users', lazy: screen(() => import('./admin/UsersPage'), 'UsersPage'), handle: title('Users') },
              { path: 'errors', lazy: screen(() => import('./admin/ClientErrorsPage'), 'ClientErrorsPage'), handle: title('Client Error Log') },
              { path: 'outbox', lazy: screen(() => import('./admin/OutboxPage'), 'OutboxPage'), handle: title('Outbox') },
              // Unknown admin paths: 'Page Not Found' for admins; AdminOnly sends everyone else to /dealer (spec 01 §2).
              { path: '*', element: <NotFoundPage />, handle: title('Page Not Found') },
            ],
          },
          {
            path: '/dealer',
            children: [
              { index: true, lazy: screen(() => import('./dealer/dashboard/DealerDashboard'), 'DealerDashboard'), handle: title('Dashboard') },
              { path: 'assets', lazy: screen(() => import('./dealer/assets/AssetManager'), 'AssetManager'), handle: title('Assets') },
              { path: 'campaigns', lazy: screen(() => import('./dealer/campaigns/CampaignsPage'), 'CampaignsPage'), handle: title('Campaigns') },
              { path: 'config', lazy: screen(() => import('./dealer/config/ConfigManager'), 'ConfigManager'), handle: title('Configuration') },
              { path: 'upsells', lazy: screen(() => import('./dealer/config/UpsellRules'), 'UpsellRules'), handle: title('Upsell Rules') },
              { path: 'inventory', lazy: screen(() => import('./dealer/inventory/InventoryPage'), 'InventoryPage'), handle: title('Inventory') },
              { path: 'analytics', lazy: screen(() => import('./dealer/analytics/AnalyticsPage'), 'AnalyticsPage'), handle: title('Analytics') },
              { path: 'script', lazy: screen(() => import('./dealer/script/ScriptPage'), 'ScriptPage'), handle: title('Embed Script') },
              { path: 'preview', lazy: screen(() => import('./dealer/config/BannerPreview'), 'BannerPreview'), handle: title('Banner Preview') },
            ],
          },
          { path: '/scripts/:dealerId', lazy: screen(() => import('./scripts/DealerScriptPage'), 'DealerScriptPage'), handle: title('Dealer Script') },
          { path: '*', element: <NotFoundPage />, handle: title('Page Not Found') },
        ],
      },
    ],
  },
]);

/**
 * The signed-in app: every route above. This module (and React Router with it) is loaded only
 * once a session exists (`SessionGate` in `Root.tsx`), so the sign-in screen does not download it.
 */
export function AppRoutes() {
  return <RouterProvider router={router} />;
}
