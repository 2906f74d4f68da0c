/**
 * Session state for the web app: the signed-in user from GET /api/auth/me, login and logout.
 * The browser keeps nothing but the HttpOnly session cookie (DECISIONS 1, 4).
 */
import { createContext, useContext, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SessionUser } from '../../domain/schemas';
import { apiFetch } from '../api/client';

interface Auth {
  user: SessionUser | null;
  status: 'loading' | 'signed-in' | 'signed-out';
  login(email: string, password: string): Promise<void>;
  logout(): Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);
const ME = ['auth', 'me'] as const;

/** Provides `useAuth()` to the tree. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const me = useQuery({
    queryKey: ME,
    // 200 `{ user: null }` when signed out, so a signed-out page load logs no failed request.
    queryFn: async () => (await apiFetch<{ user: SessionUser | null }>('/api/auth/me')).user,
    staleTime: 60_000,
    retry: false,
  });
  const value: Auth = {
    user: me.data ?? null,
    status: me.isPending ? 'loading' : me.data ? 'signed-in' : 'signed-out',
    login: async (email, password) => {
      const { user } = await apiFetch<{ user: SessionUser }>('/api/auth/login', { json: { email, password } });
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'auth' });
      qc.setQueryData(ME, user);
    },
    logout: async () => {
      await apiFetch('/api/auth/logout', { method: 'POST' }).catch(() => undefined);
      qc.setQueryData(ME, null);
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'auth' });
    },
  };
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The current session; must be used under AuthProvider. */
export function useAuth(): Auth {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside AuthProvider');
  return ctx;
}

/**
 * True when the signed-in user may change the dealer data a screen shows (admins and dealer
 * managers); false for the read-only viewer role and while no one is signed in. The server's
 * `dealer-write` access policy refuses the same roles; screens use this to disable their controls
 * and say why (ViewOnlyNotice).
 */
export function useCanEdit(): boolean {
  const { user } = useAuth();
  return user !== null && user.role !== 'viewer';
}
