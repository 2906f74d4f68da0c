/**
 * Routes of the web app (spec 01 §2, spec 02 §2): the session gate ('Loading...' / sign-in),
 * '/' by role, the admin area for admins only, the dealer area, the dealer script page, and
 * 'Page Not Found'. Route render errors show the 'Something went wrong' screen.
 */
import { createBrowserRouter, Navigate, Outlet, useRouteError } from 'react-router';
import { useEffect } from 'react';
import { useAuth } from './components/auth';
import { Shell } from './components/Shell';
import { ComingSoon, ErrorScreen, LoadingScreen, NotFoundPage } from './components/feedback';
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

const later = (title: string, description: string) => <ComingSoon title={title} description={description} />;

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
              { index: true, element: later('Admin Dashboard', 'Platform totals, trends and recent dealers.') },
              { path: 'dealers', element: later('Dealer Management', 'Search, filter and manage every dealer.') },
              { path: 'dealers/new', element: later('Add Dealer', 'Create a dealer with all default settings.') },
              { path: 'dealers/:dealerId/settings', element: later('Dealer Settings', 'Asset storage, branding, security and notifications.') },
              { path: 'manufacturers', element: later('Manufacturer Management', 'The catalogue of models, trims, mappings and upsell rules.') },
              { path: 'analytics', element: later('Platform Analytics', 'Impressions, clicks, CTR and performance score per dealer.') },
              { path: 'users', element: later('User Management', 'Create, edit and deactivate users.') },
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
