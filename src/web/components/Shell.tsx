/**
 * The signed-in layout: a sidebar with the role's navigation (active item by path prefix), the
 * user's initial, name, dealer name (or 'Admin') and Sign Out (spec 01 §2, spec 02 §2 Shell).
 * Screens without an item of their own light the item they are reached from (the Client Error
 * Log: Dashboard; a dealer's script page: Dealers for admins, Script for dealer users).
 */
import { NavLink as RouterNavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { AppShell, Avatar, Box, Burger, Button, Group, NavLink, ScrollArea, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  BarChart3,
  Building2,
  CalendarRange,
  Code2,
  Eye,
  Factory,
  Image,
  LayoutDashboard,
  LogOut,
  Mail,
  Package,
  Settings2,
  TrendingUp,
  Users,
  type LucideIcon,
} from 'lucide-react';
import { useAuth } from './auth';

interface Item {
  label: string;
  to: string;
  icon: LucideIcon;
  /** Only active on this exact path (dashboards). */
  exact?: boolean;
  /** Other path prefixes the item stands for: screens reached from it that have no item of their own. */
  also?: string[];
}

export const ADMIN_NAV: Item[] = [
  // The Client Error Log is opened from the dashboard (its sidebar item is active there).
  { label: 'Dashboard', to: '/admin', icon: LayoutDashboard, exact: true, also: ['/admin/errors'] },
  { label: 'Dealers', to: '/admin/dealers', icon: Building2, also: ['/scripts'] },
  { label: 'Manufacturers', to: '/admin/manufacturers', icon: Factory },
  { label: 'Analytics', to: '/admin/analytics', icon: BarChart3 },
  { label: 'Users', to: '/admin/users', icon: Users },
  { label: 'Outbox', to: '/admin/outbox', icon: Mail },
];

export const DEALER_NAV: Item[] = [
  { label: 'Dashboard', to: '/dealer', icon: LayoutDashboard, exact: true },
  { label: 'Assets', to: '/dealer/assets', icon: Image },
  { label: 'Campaigns', to: '/dealer/campaigns', icon: CalendarRange },
  { label: 'Configuration', to: '/dealer/config', icon: Settings2 },
  { label: 'Upsell Rules', to: '/dealer/upsells', icon: TrendingUp },
  { label: 'Inventory', to: '/dealer/inventory', icon: Package },
  { label: 'Analytics', to: '/dealer/analytics', icon: BarChart3 },
  { label: 'Script', to: '/dealer/script', icon: Code2, also: ['/scripts'] },
  { label: 'Preview', to: '/dealer/preview', icon: Eye },
];

/** Layout route: sidebar + page outlet. */
export function Shell() {
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [opened, { toggle, close }] = useDisclosure();
  const items = user?.role === 'admin' ? ADMIN_NAV : DEALER_NAV;
  const under = (prefix: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);
  const isActive = (i: Item) => (i.exact ? pathname === i.to : under(i.to)) || (i.also ?? []).some(under);

  return (
    <AppShell navbar={{ width: 248, breakpoint: 'sm', collapsed: { mobile: !opened } }} header={{ height: { base: 56, sm: 0 } }} padding="lg">
      <AppShell.Header hiddenFrom="sm" px="md">
        <Group h="100%">
          <Burger opened={opened} onClick={toggle} size="sm" aria-label="Toggle navigation" aria-expanded={opened} aria-controls="main-navigation" />
          <Text fw={700}>dc-banners</Text>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="md" bg="dark.8" c="gray.0" style={{ borderRight: 0 }}>
        <AppShell.Section>
          <Group gap="xs" mb="lg" px={6}>
            <Box w={28} h={28} bg="var(--mantine-color-red-filled)" c="white" aria-hidden style={{ borderRadius: 6, display: 'grid', placeItems: 'center', fontWeight: 800 }}>
              dc
            </Box>
            <Text fw={700} size="lg">
              dc-banners
            </Text>
          </Group>
        </AppShell.Section>
        <AppShell.Section grow component={ScrollArea}>
          <nav aria-label="Main" id="main-navigation">
            <Stack gap={2}>
              {items.map((i) => (
                <NavLink
                  key={i.to}
                  component={RouterNavLink}
                  to={i.to}
                  end={i.exact}
                  label={i.label}
                  leftSection={<i.icon size={18} />}
                  active={isActive(i)}
                  onClick={close}
                  variant="filled"
                  color="red"
                  styles={{ root: { borderRadius: 6, color: isActive(i) ? undefined : 'var(--mantine-color-gray-4)' } }}
                />
              ))}
            </Stack>
          </nav>
        </AppShell.Section>
        <AppShell.Section pt="md" style={{ borderTop: '1px solid var(--mantine-color-dark-5)' }}>
          <Group gap="sm" wrap="nowrap" mb="sm">
            <Avatar color="red" radius="xl">
              {user?.name.charAt(0).toUpperCase()}
            </Avatar>
            <Box style={{ minWidth: 0 }}>
              <Text size="sm" fw={600} truncate>
                {user?.name}
              </Text>
              <Text size="xs" c="gray.5" truncate>
                {user?.role === 'admin' ? 'Admin' : (user?.dealerName ?? '')}
              </Text>
            </Box>
          </Group>
          <Button
            fullWidth
            variant="subtle"
            color="gray.3"
            leftSection={<LogOut size={16} />}
            onClick={async () => {
              await logout();
              navigate('/');
            }}
          >
            Sign Out
          </Button>
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main bg="gray.0">
        <Box maw={1280} mx="auto">
          <Outlet />
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
