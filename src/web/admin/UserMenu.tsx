/**
 * A user's actions on the User Management screen (UsersPage.tsx): Edit, Reset password and
 * Deactivate / Reactivate. A module of its own so that the menu's popover engine loads after the
 * list has painted.
 */
import { ActionIcon, Menu } from '@mantine/core';
import { KeyRound, MoreHorizontal, Pencil, UserCheck, UserX } from 'lucide-react';
import type { AdminUser } from '../../domain/admin';
import type { Dialog } from './UsersPage';

/** Edit, Reset password and Deactivate / Reactivate of one user. */
export function UserMenu({ user: u, onDialog, onReactivate }: { user: AdminUser; onDialog: (d: Dialog) => void; onReactivate: () => void }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${u.email}`}>
          <MoreHorizontal size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<Pencil size={14} />} onClick={() => onDialog({ kind: 'edit', user: u })}>
          Edit
        </Menu.Item>
        <Menu.Item leftSection={<KeyRound size={14} />} onClick={() => onDialog({ kind: 'password', user: u })}>
          Reset password
        </Menu.Item>
        {u.isActive ? (
          <Menu.Item color="red" leftSection={<UserX size={14} />} onClick={() => onDialog({ kind: 'deactivate', user: u })}>
            Deactivate
          </Menu.Item>
        ) : (
          <Menu.Item leftSection={<UserCheck size={14} />} onClick={onReactivate}>
            Reactivate
          </Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
