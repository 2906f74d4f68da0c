/**
 * The notice on a screen a viewer cannot change (DECISIONS 5: a viewer sees every dealer
 * screen, every change is refused), worded like the Asset Manager's: the page says it is view-only
 * instead of leaving a viewer to wonder why Save stays disabled.
 */
import { Alert } from '@mantine/core';
import { Eye } from 'lucide-react';

/** 'View only' with what to ask a dealer manager for, e.g. `action="change the configuration"`. */
export function ViewOnlyNotice({ action }: { action: string }) {
  return (
    <Alert color="blue" variant="light" icon={<Eye size={18} />} title="View only" data-testid="view-only-notice">
      Your account has view-only access: you can see this page but not change it. Ask a dealer manager to {action}.
    </Alert>
  );
}
