/**
 * The session gate (spec 01 §2): 'Loading...' while GET /api/auth/me answers, the sign-in screen
 * when signed out, else the routed app. The routed app (`App.tsx`: React Router and every screen)
 * is a separate chunk fetched after sign-in, so the sign-in screen's first load carries only
 * React, Mantine's basics and the form (issue 18 budget: 150 KB gzipped).
 */
import { lazy, Suspense } from 'react';
import { useAuth } from './components/auth';
import { useDocumentTitle } from './components/title';
import { LoadingScreen } from './components/feedback';
import { LoginPage } from './auth/LoginPage';

const AppRoutes = lazy(async () => ({ default: (await import('./App')).AppRoutes }));

function SignedOut() {
  useDocumentTitle('Sign in');
  return <LoginPage />;
}

/** Renders what the session allows; see the module comment. */
export function SessionGate() {
  const { status } = useAuth();
  if (status === 'loading') return <LoadingScreen />;
  if (status === 'signed-out') return <SignedOut />;
  return (
    <Suspense fallback={<LoadingScreen />}>
      <AppRoutes />
    </Suspense>
  );
}
