/** Pieces the app's data tables share. */
import { Table, VisuallyHidden } from '@mantine/core';

/** The header of a table's last column of row buttons: named "Actions" for screen readers, blank on screen. */
export function ActionsHeader() {
  return (
    <Table.Th>
      <VisuallyHidden>Actions</VisuallyHidden>
    </Table.Th>
  );
}
