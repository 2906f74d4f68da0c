/**
 * Escape inside a color field (Mantine's ColorInput: a hex text field with a picker under it)
 * closes the open picker and nothing else. Mantine's ColorInput keeps focus in the text field,
 * where its picker does not hear Escape, so the key went on to the drawer or dialog around it (the
 * manufacturer form then asked to discard every edit). With these props the picker's open state is
 * the caller's, and while it is open the field carries `data-mantine-stop-propagation`, the mark
 * Mantine's drawers and modals skip Escape for (as its own Select does); a second Escape, with the
 * picker closed, reaches them as usual.
 */
import { useState } from 'react';
import type { ColorInputProps } from '@mantine/core';

/** `props` with the picker's open state owned here and Escape closing it; spread them on a ColorInput. */
export function useColorPickerProps(props: ColorInputProps): ColorInputProps & { 'data-mantine-stop-propagation'?: true } {
  const [open, setOpen] = useState(false);
  return {
    ...props,
    popoverProps: { ...props.popoverProps, opened: open, onChange: setOpen },
    'data-mantine-stop-propagation': open || undefined,
    onFocus: (e) => {
      setOpen(true);
      props.onFocus?.(e);
    },
    onClick: (e) => {
      setOpen(true);
      props.onClick?.(e);
    },
    onBlur: (e) => {
      setOpen(false);
      props.onBlur?.(e);
    },
    onKeyDown: (e) => {
      if (e.key === 'Escape' && open) setOpen(false);
      props.onKeyDown?.(e);
    },
  };
}
