/**
 * Mantine's toast container alone, as the target of toasts.tsx's dynamic import: a
 * named re-export lets the bundler put `Notifications` and its transitions in a chunk of their own,
 * while the store (`notifications.show`) stays in the entry.
 */
export { Notifications } from '@mantine/notifications';
