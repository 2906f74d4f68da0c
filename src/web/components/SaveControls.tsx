/**
 * The save controls of the editing screens (spec 01 §4 Dealer settings, spec 02 §4 Config editing
 * and Upsell strategy): the 'Unsaved changes' badge while the form differs from what is saved, any
 * extra buttons (Reset ...), and Save Changes, which reads 'Saving...' while saving and is disabled
 * when the form is clean, while saving, or when the user may not edit. Save Changes is the form's
 * submit button (Enter in any field saves), so it sits inside the screen's <form>.
 *
 * StickyActionBar keeps these controls in view on long forms: it sticks under the
 * mobile header while the page scrolls, at the top, where notifications (bottom right) never
 * cover it.
 */
import type { KeyboardEvent, ReactNode } from 'react';
import { Badge, Box, Button, Group } from '@mantine/core';
import { Save } from 'lucide-react';

/**
 * 'Unsaved changes', the extra buttons in `children`, and the submit button Save Changes; with
 * `invalid` (a field's value is refused by the form's check) Save Changes is disabled too.
 */
export function SaveControls({ dirty, saving, canEdit = true, invalid = false, children }: { dirty: boolean; saving: boolean; canEdit?: boolean; invalid?: boolean; children?: ReactNode }) {
  return (
    <Group gap="sm" justify="flex-end">
      {dirty && (
        <Badge color="orange" variant="light" size="lg">
          Unsaved changes
        </Badge>
      )}
      {children}
      <Button type="submit" leftSection={<Save size={16} />} disabled={!canEdit || !dirty || saving || invalid}>
        {saving ? 'Saving...' : 'Save Changes'}
      </Button>
    </Group>
  );
}

/** A bar that stays at the top of the viewport (under the mobile header) while a long form scrolls; `start` is shown on its left from 'sm' up. */
export function StickyActionBar({ start, children }: { start?: ReactNode; children: ReactNode }) {
  return (
    <Box
      pos="sticky"
      py="xs"
      px="sm"
      data-testid="sticky-action-bar"
      className="dcb-action-bar"
      style={{
        top: 'var(--app-shell-header-offset, 0rem)',
        zIndex: 5,
        background: 'var(--mantine-color-gray-0)',
        borderBottom: '1px solid var(--mantine-color-gray-3)',
      }}
    >
      <Group justify="space-between" gap="sm" wrap="nowrap">
        <Box visibleFrom="sm" style={{ minWidth: 0, flex: 1 }}>
          {start}
        </Box>
        <Box style={{ flex: '0 1 auto', marginLeft: 'auto' }}>{children}</Box>
      </Group>
    </Box>
  );
}

/**
 * A form's keydown handler for Enter in a one-line field while Save is disabled because a field is
 * invalid (the browser then does not submit at all): calls `onInvalid` (mark the fields, say why)
 * so Enter never does nothing silently. Textareas and buttons keep their own Enter.
 */
export function enterWhileInvalid(invalid: boolean, onInvalid: () => void) {
  return (e: KeyboardEvent<HTMLFormElement>) => {
    if (!invalid || e.key !== 'Enter' || !(e.target instanceof HTMLInputElement)) return;
    e.preventDefault();
    onInvalid();
  };
}
