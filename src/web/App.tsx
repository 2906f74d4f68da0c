/**
 * Routes of the web app (spec 01 §2, spec 02 §2): the session gate ('Loading...' / sign-in),
 * '/' by role, the admin area for admins only (every /admin/* path, known or not: other users go
 * to /dealer), the dealer area, the dealer script page, and 'Page Not Found'. Route render errors
 * show the 'Something went wrong' screen. Each screen names itself in `document.title`
 * ("Dealers · dc-banners", issue 16) through its route's `handle.title`.
 */
import { createBrowserRouter, Navigate, Outlet, useMatches, useRouteError } from 'react-router';
import { useEffect } from 'react';
import { useAuth } from './components/auth';
import { useDocumentTitle } from './components/title';
import { Shell } from './components/Shell';
import { ErrorScreen, LoadingScreen, NotFoundPage } from './components/feedback';
import { LoginPage } from './auth/LoginPage';
import { DealerDashboard } from './dealer/dashboard/DealerDashboard';
import { AssetManager } from './dealer/assets/AssetManager';
import { ScriptPage } from './dealer/script/ScriptPage';
import { ConfigManager } from './dealer/config/ConfigManager';
import { UpsellRules } from './dealer/config/UpsellRules';
import { BannerPreview } from './dealer/config/BannerPreview';
import { DealerScriptPage } from './scripts/DealerScriptPage';
import { AnalyticsPage } from './dealer/analytics/AnalyticsPage';
import { InventoryPage } from './dealer/inventory/InventoryPage';
import { AdminDashboard } from './admin/AdminDashboard';
import { DealersPage } from './admin/DealersPage';
import { NewDealerPage } from './admin/NewDealerPage';
import { DealerSettingsPage } from './admin/DealerSettingsPage';
import { ManufacturersPage } from './admin/ManufacturersPage';
import { PlatformAnalyticsPage } from './admin/PlatformAnalyticsPage';
import { UsersPage } from './admin/UsersPage';
import { ClientErrorsPage } from './admin/ClientErrorsPage';

/** The title of the deepest matched route that has one (`handle: { title }`). */
function RouteTitle() {
  const matches = useMatches();
  const titled = matches.filter((m) => typeof (m.handle as { title?: unknown } | undefined)?.title === 'string');
  useDocumentTitle((titled.at(-1)?.handle as { title: string } | undefined)?.title);
  return null;
}

function SessionGate() {
  const { status } = useAuth();
  if (status === 'loading') return <LoadingScreen />;
  if (status === 'signed-out') return <SignedOut />;
  return (
    <>
      <RouteTitle />
      <Outlet />
    </>
  );
}

function SignedOut() {
  useDocumentTitle('Sign in');
  return <LoginPage />;
}

function HomeRedirect() {
  const { user } = useAuth();
  return <Navigate to={user?.role === 'admin' ? '/admin' : '/dealer'} replace />;
}

function AdminOnly() {
  const { user } = useAuth();
  return user?.role === 'admin' ? <Outlet /> : <Navigate to="/dealer" replace />;
}

function RouteError() {
  const error = useRouteError();
  useEffect(() => console.error('Route error', error), [error]);
  useDocumentTitle('Something went wrong');
  return <ErrorScreen />;
}

const title = (t: string) => ({ title: t });

export const router = createBrowserRouter([
  {
    element: <SessionGate />,
    errorElement: <RouteError />,
    children: [
      { path: '/', element: <HomeRedirect /> },
      {
        element: <Shell />,
        children: [
          {
            path: '/admin',
            element: <AdminOnly />,
            children: [
              { index: true, element: <AdminDashboard />, handle: title('Admin Dashboard') },
              { path: 'dealers', element: <DealersPage />, handle: title('Dealers') },
              { path: 'dealers/new', element: <NewDealerPage />, handle: title('Add Dealer') },
              { path: 'dealers/:dealerId/settings', element: <DealerSettingsPage />, handle: title('Dealer Settings') },
              { path: 'manufacturers', element: <ManufacturersPage />, handle: title('Manufacturers') },
              { path: 'analytics', element: <PlatformAnalyticsPage />, handle: title('Platform Analytics') },
              { path: 'users', element: <UsersPage />, handle: title('Users') },
              { path: 'errors', element: <ClientErrorsPage />, handle: title('Client Error Log') },
              // Unknown admin paths: 'Page Not Found' for admins; AdminOnly sends everyone else to /dealer (spec 01 §2).
              { path: '*', element: <NotFoundPage />, handle: title('Page Not Found') },
            ],
          },
          {
            path: '/dealer',
            children: [
              { index: true, element: <DealerDashboard />, handle: title('Dashboard') },
              { path: 'assets', element: <AssetManager />, handle: title('Assets') },
              { path: 'config', element: <ConfigManager />, handle: title('Configuration') },
              { path: 'upsells', element: <UpsellRules />, handle: title('Upsell Rules') },
              { path: 'inventory', element: <InventoryPage />, handle: title('Inventory') },
              { path: 'analytics', element: <AnalyticsPage />, handle: title('Analytics') },
              { path: 'script', element: <ScriptPage />, handle: title('Embed Script') },
              { path: 'preview', element: <BannerPreview />, handle: title('Banner Preview') },
            ],
          },
          { path: '/scripts/:dealerId', element: <DealerScriptPage />, handle: title('Dealer Script') },
          { path: '*', element: <NotFoundPage />, handle: title('Page Not Found') },
        ],
      },
    ],
  },
]);
