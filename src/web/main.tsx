/** Web app entry: Mantine theme (theme.ts), notifications (fetched after first paint: components/toasts.tsx), TanStack Query, session, router. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MantineProvider } from '@mantine/core';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { AuthProvider } from './components/auth';
import { DeferredNotifications } from './components/toasts';
import { ErrorBoundary } from './components/feedback';
import { SessionGate } from './Root';
import { reportClientError } from './api/client-errors';
import { cssVariablesResolver, theme } from './theme';
import './global.css';


const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } } });

/** Render errors caught by any error boundary (the router's error screen or ErrorBoundary) go to the server's log. */
const onRenderError = (error: unknown, info: { componentStack?: string }) => reportClientError(error, info.componentStack);

createRoot(document.getElementById('root')!, { onCaughtError: onRenderError, onUncaughtError: onRenderError }).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      {/* Bottom right: page actions sit at the top (sticky on long forms) and in drawer headers,
          so a toast never covers Save, Reset or Add; at the top while a dialog (its Save at its
          bottom) is open (components/toasts.tsx). */}
      <DeferredNotifications position="bottom-right" limit={3} />
      <ErrorBoundary>
        <QueryClientProvider client={queryClient}>
          <AuthProvider>
            <SessionGate />
          </AuthProvider>
        </QueryClientProvider>
      </ErrorBoundary>
    </MantineProvider>
  </StrictMode>,
);
