/**
 * A value of the one priority scale (domain/priority-scale.ts) as every screen shows it: '9 · High'
 * in its band's color, with the full band name for assistive technology and on hover. Used for
 * both the stock priority and the upsell priority, so the two read alike. Never narrower than its
 * text: in a table's auto layout a badge that may shrink made its column too narrow ('5 · Nor…').
 */
import { Badge } from '@mantine/core';
import { formatPriority, priorityColor, priorityLabel } from '../../domain/priority-scale';

export function PriorityBadge({ value, testId, size = 'md' }: { value: number; testId?: string; size?: 'sm' | 'md' }) {
  return (
    <Badge variant="light" color={priorityColor(value)} tt="none" size={size} title={priorityLabel(value)} data-testid={testId} style={{ flexShrink: 0, minWidth: 'max-content' }}>
      {formatPriority(value)}
    </Badge>
  );
}
