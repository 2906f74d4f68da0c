/**
 * Mantine's Modal, Tooltip, Select, TagsInput and ColorInput as components fetched after the screen has
 * painted. Each pulls in a good part of Mantine's overlay machinery (the popover engine
 * @floating-ui is 15 KB gzipped, the combobox 10, the modal with its scroll lock and focus trap
 * 10), which no screen needs to draw its first frame: a closed dialog shows nothing, a tooltip
 * only matters on hover, and a select only when it is opened. The editing screens' first load
 * stays within its 200 KB budget this way.
 *
 * Same props as Mantine's. Until the component has arrived (a few milliseconds after the first
 * paint; the fetch starts in an effect), the Modal renders nothing (it opens once it is in), the
 * Tooltip renders its target alone, and the inputs render a disabled text input of the
 * same size with the same label and the current value, which the real one replaces.
 */
import { useEffect, useState, type ComponentType } from 'react';
import { useColorPickerProps } from './color-picker';
import { TextInput, type ColorInputProps, type ComboboxData, type ModalProps, type SelectProps, type TagsInputProps, type TooltipProps } from '@mantine/core';

/** A hook that fetches the component after the first paint (once for the whole app) and returns it when it is in. */
function deferred<P>(load: () => Promise<ComponentType<P>>): () => ComponentType<P> | undefined {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<void> | undefined;
  return function useDeferred() {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    useEffect(() => {
      if (component) return;
      let live = true;
      pending ??= load().then((c) => {
        loaded = c;
      });
      pending.then(
        () => live && setComponent(() => loaded),
        (error: unknown) => console.error('Component failed to load', error),
      );
      return () => {
        live = false;
      };
    }, [component]);
    return component;
  };
}

const useModal = deferred(async () => (await import('./deferred-parts')).Modal);
const useTooltip = deferred(async () => (await import('./deferred-parts')).Tooltip);
const useSelect = deferred(async () => (await import('./deferred-select')).Select);
const useTagsInput = deferred(async () => (await import('./deferred-select')).TagsInput);
const useColorInput = deferred(async () => (await import('./deferred-select')).ColorInput);

/** Mantine's Modal; see the module comment. */
export function Modal(props: ModalProps) {
  const Real = useModal();
  return Real ? <Real {...props} /> : null;
}

/** Mantine's Tooltip; see the module comment. */
export function Tooltip(props: TooltipProps) {
  const Real = useTooltip();
  return Real ? <Real {...props} /> : <>{props.children}</>;
}

/** The label of `value` among a select's options (the value itself when it is not one). */
function optionLabel(data: ComboboxData | undefined, value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  for (const item of data ?? []) {
    if (typeof item === 'string') {
      if (item === value) return item;
    } else if ('group' in item) {
      const found = optionLabel(item.items, value);
      if (found !== undefined) return found;
    } else if (item.value === value) {
      return item.label ?? item.value;
    }
  }
  return value;
}

type StandInProps = Pick<SelectProps, 'label' | 'description' | 'error' | 'placeholder' | 'size' | 'required' | 'withAsterisk' | 'className' | 'style' | 'w' | 'maw' | 'miw' | 'flex' | 'radius' | 'leftSection' | 'aria-label'>;

/** The disabled input a Select, TagsInput or ColorInput shows until it has arrived. */
function StandIn({ text, ...props }: StandInProps & { text: string }) {
  return <TextInput {...props} value={text} disabled readOnly />;
}

function standInProps(p: StandInProps): StandInProps {
  const { label, description, error, placeholder, size, required, withAsterisk, className, style, w, maw, miw, flex, radius, leftSection } = p;
  return { label, description, error, placeholder, size, required, withAsterisk, className, style, w, maw, miw, flex, radius, leftSection, 'aria-label': p['aria-label'] };
}

/** Mantine's Select; see the module comment. */
export function Select(props: SelectProps) {
  const Real = useSelect();
  if (Real) return <Real {...props} />;
  return <StandIn {...standInProps(props)} text={optionLabel(props.data, props.value ?? props.defaultValue) ?? ''} />;
}

/** Mantine's TagsInput; see the module comment. */
export function TagsInput(props: TagsInputProps) {
  const Real = useTagsInput();
  if (Real) return <Real {...props} />;
  return <StandIn {...standInProps(props)} text={(props.value ?? props.defaultValue ?? []).join(', ')} />;
}

/** Mantine's ColorInput, whose Escape closes its picker only (color-picker.ts); see the module comment. */
export function ColorInput(props: ColorInputProps) {
  const Real = useColorInput();
  const own = useColorPickerProps(props);
  if (Real) return <Real {...own} />;
  return <StandIn {...standInProps(props)} text={props.value ?? props.defaultValue ?? ''} />;
}
