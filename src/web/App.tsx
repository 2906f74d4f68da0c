/**
 * Routes of the web app (spec 01 §2, spec 02 §2): the session gate ('Loading...' / sign-in),
 * '/' by role, the admin area for admins only, the dealer area, the dealer script page, and
 * 'Page Not Found'. Route render errors show the 'Something went wrong' screen.
 */
import { createBrowserRouter, Navigate, Outlet, useRouteError } from 'react-router';
import { useEffect } from 'react';
import { useAuth } from './components/auth';
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

function SessionGate() {
  const { status } = useAuth();
  if (status === 'loading') return <LoadingScreen />;
  if (status === 'signed-out') return <LoginPage />;
  return <Outlet />;
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
  return <ErrorScreen />;
}

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
              { index: true, element: <AdminDashboard /> },
              { path: 'dealers', element: <DealersPage /> },
              { path: 'dealers/new', element: <NewDealerPage /> },
              { path: 'dealers/:dealerId/settings', element: <DealerSettingsPage /> },
              { path: 'manufacturers', element: <ManufacturersPage /> },
              { path: 'analytics', element: <PlatformAnalyticsPage /> },
              { path: 'users', element: <UsersPage /> },
              { path: 'errors', element: <ClientErrorsPage /> },
            ],
          },
          {
            path: '/dealer',
            children: [
              { index: true, element: <DealerDashboard /> },
              { path: 'assets', element: <AssetManager /> },
              { path: 'config', element: <ConfigManager /> },
              { path: 'upsells', element: <UpsellRules /> },
              { path: 'inventory', element: <InventoryPage /> },
              { path: 'analytics', element: <AnalyticsPage /> },
              { path: 'script', element: <ScriptPage /> },
              { path: 'preview', element: <BannerPreview /> },
            ],
          },
          { path: '/scripts/:dealerId', element: <DealerScriptPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
