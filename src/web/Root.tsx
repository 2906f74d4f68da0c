/**
 * The session gate (spec 01 §2): the public set-password screen of invitation links on its path,
 * else 'Loading...' while GET /api/auth/me answers, the sign-in screen when signed out, else the routed app. Both are chunks of their own: the routed app
 * (`App.tsx`: React Router and every screen) is fetched once signed in, so the sign-in screen's
 * first load carries only React, Mantine's basics and the form (budget: 150 KB gzipped); the
 * sign-in screen (`auth/LoginPage.tsx`, with @mantine/form and the password input) is fetched only
 * when signed out, so a signed-in screen's first load does not carry it (budget: 200 KB).
 * scripts/web-budget.ts counts the sign-in chunk in the sign-in screen's first load.
 */
import { lazy, Suspense } from 'react';
import { useAuth } from './components/auth';
import { useDocumentTitle } from './components/title';
import { LoadingScreen } from './components/feedback';
import { retryChunk } from './components/chunks';
import { SET_PASSWORD_PATH } from '../domain/invitations';

// A chunk that fails to load is tried once more (retryChunk), then ErrorBoundary offers a reload.
const AppRoutes = lazy(retryChunk(async () => ({ default: (await import('./App')).AppRoutes })));
const LoginPage = lazy(retryChunk(async () => ({ default: (await import('./auth/LoginPage')).LoginPage })));
const SetPasswordPage = lazy(retryChunk(async () => ({ default: (await import('./auth/SetPasswordPage')).SetPasswordPage })));

function SignedOut() {
  useDocumentTitle('Sign in');
  return (
    <Suspense fallback={<LoadingScreen />}>
      <LoginPage />
    </Suspense>
  );
}

/** Renders what the session allows; see the module comment. */
export function SessionGate() {
  const { status } = useAuth();
  // The invitation e-mail's link (domain/invitations.ts): public, whoever is signed in or not.
  if (window.location.pathname === SET_PASSWORD_PATH)
    return (
      <Suspense fallback={<LoadingScreen />}>
        <SetPasswordPage />
      </Suspense>
    );
  if (status === 'loading') return <LoadingScreen />;
  if (status === 'signed-out') return <SignedOut />;
  return (
    <Suspense fallback={<LoadingScreen />}>
      <AppRoutes />
    </Suspense>
  );
}
