/**
 * The save controls of the editing screens (spec 01 §4 Dealer settings, spec 02 §4 Config editing
 * and Upsell strategy): the 'Unsaved changes' badge while the form differs from what is saved, any
 * extra buttons (Reset ...), and Save Changes, which reads 'Saving...' while saving and is disabled
 * when the form is clean, while saving, or when the user may not edit.
 */
import type { ReactNode } from 'react';
import { Badge, Button, Group } from '@mantine/core';
import { Save } from 'lucide-react';

export function SaveControls({ dirty, saving, canEdit = true, onSave, children }: { dirty: boolean; saving: boolean; canEdit?: boolean; onSave: () => void; children?: ReactNode }) {
  return (
    <Group>
      {dirty && (
        <Badge color="orange" variant="light" size="lg">
          Unsaved changes
        </Badge>
      )}
      {children}
      <Button leftSection={<Save size={16} />} onClick={onSave} disabled={!canEdit || !dirty || saving}>
        {saving ? 'Saving...' : 'Save Changes'}
      </Button>
    </Group>
  );
}
