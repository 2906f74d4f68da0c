/**
 * Mantine's Select, TagsInput and ColorInput alone, as the target of deferred.tsx's dynamic import
 *: named re-exports let the bundler put them and the popover they share in a chunk of
 * their own.
 */
export { ColorInput, Select, TagsInput } from '@mantine/core';
