/**
 * Mantine's Modal and Tooltip alone, as the target of deferred.tsx's dynamic import: named
 * re-exports let the bundler put them and what they need in a chunk of their own.
 */
export { Modal, Tooltip } from '@mantine/core';
