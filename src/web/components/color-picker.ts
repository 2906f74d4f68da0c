/**
 * Escape inside a color field (Mantine's ColorInput: a hex text field with a picker under it)
 * closes the open picker and nothing else. Mantine's drawers and modals close on an Escape
 * anywhere in the window (a capture listener) unless the key's target carries
 * `data-mantine-stop-propagation`, the mark their own Select sets; the ColorInput sets none, so the
 * key went on to the drawer or dialog around it (the manufacturer form then asked to discard every
 * edit). With these props the picker's open state is the caller's, and while it is open every
 * element an Escape can start from carries the mark: the text field (where Mantine keeps focus,
 * and where its picker does not hear the key: closed here), and inside the dropdown the dropdown
 * itself, the saturation area, the hue and alpha sliders and the swatches (where the popover's own
 * Escape closes it). A second Escape, with the picker closed, reaches the drawer as usual.
 */
import { useState } from 'react';
import type { ColorInputProps } from '@mantine/core';

/** The attribute Mantine's ModalBase and Drawer look for on an Escape's target before they close. */
const STOP = { 'data-mantine-stop-propagation': true } as const;

/** `props` with the picker's open state owned here and Escape closing it; spread them on a ColorInput. */
export function useColorPickerProps(props: ColorInputProps): ColorInputProps & { 'data-mantine-stop-propagation'?: true } {
  const [open, setOpen] = useState(false);
  return {
    ...props,
    // The picker's elements (ColorPicker's Styles API names), marked while it is open.
    attributes: open ? { ...props.attributes, wrapper: STOP, saturation: STOP, slider: STOP, swatches: STOP, swatch: STOP } : props.attributes,
    popoverProps: { ...props.popoverProps, opened: open, onChange: setOpen, attributes: open ? { dropdown: STOP } : props.popoverProps?.attributes },
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
