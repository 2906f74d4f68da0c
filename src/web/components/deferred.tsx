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
 * Tooltip renders its target alone (the same element it keeps once the tooltip is in), and the inputs render a disabled text input of the
 * same size with the same label and the current value, which the real one replaces.
 */
import { cloneElement, isValidElement, useEffect, useId, useState, type ComponentType, type Ref } from 'react';
import { useMergedRef } from '@mantine/hooks';
import { useColorPickerProps } from './color-picker';
import { registerOpenDialog } from './open-dialogs';
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

/**
 * Mantine's Modal; see the module comment. While `opened` it counts as an open dialog
 * (open-dialogs.ts), so toasts move away from its bottom, where its Save and Cancel are.
 */
export function Modal(props: ModalProps) {
  const Real = useModal();
  const { opened } = props;
  useEffect(() => (opened ? registerOpenDialog() : undefined), [opened]);
  return Real ? <Real {...props} /> : null;
}

/** What opens a tooltip unless its `events` say otherwise (the app's theme: hover, keyboard focus and touch). */
const TOOLTIP_EVENTS = { hover: true, focus: true, touch: true };

/** Whether `el` shows keyboard focus (`:focus-visible`); true where the selector is not known (jsdom). */
function focusVisible(el: Element): boolean {
  try {
    return el.matches(':focus-visible');
  } catch {
    return true;
  }
}

/**
 * Mantine's Tooltip; see the module comment. Its target, `children`, is rendered here and stays the
 * same element when the tooltip arrives: Mantine's Tooltip clones its child, and rendering it in
 * place of the bare child would make React replace the element on screen, losing its focus (a
 * keyboard user on a cut name) and whatever else it held. The tooltip is Mantine's, pointed at that
 * element (its `target`) and opened from here: on hover after `openDelay`, on keyboard focus
 * (focus-visible) and on touch, as `events` allow; it closes on leaving, blurring and Escape, and
 * while open the target's `aria-describedby` names its text. A hover or focus before the tooltip
 * has arrived shows it as soon as it does.
 */
export function Tooltip({ children, label, opened, disabled, openDelay = 0, closeDelay = 0, events = TOOLTIP_EVENTS, ...props }: TooltipProps) {
  const Real = useTooltip();
  const [node, setNode] = useState<HTMLElement | null>(null);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const labelId = useId();
  const child = isValidElement<{ ref?: Ref<HTMLElement>; 'aria-describedby'?: string }>(children) ? children : null;
  const ref = useMergedRef(child?.props.ref, setNode);
  const open = opened ?? (!disabled && (hovered || focused));

  useEffect(() => {
    if (!node) return;
    let hoverTimer: ReturnType<typeof setTimeout> | undefined;
    const hover = (on: boolean, delay: number) => {
      clearTimeout(hoverTimer);
      if (delay > 0) hoverTimer = setTimeout(() => setHovered(on), delay);
      else setHovered(on);
    };
    const enter = (e: PointerEvent) => {
      if (e.pointerType === 'touch' ? events.touch : events.hover) hover(true, openDelay);
    };
    const leave = () => hover(false, closeDelay);
    const focusIn = (e: FocusEvent) => {
      if (events.focus && e.target instanceof Element && focusVisible(e.target)) setFocused(true);
    };
    const focusOut = () => setFocused(false);
    const escape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      hover(false, 0);
      setFocused(false);
    };
    const listeners: Array<[EventTarget, string, EventListener]> = [
      [node, 'pointerenter', enter as EventListener],
      [node, 'pointerleave', leave],
      [node, 'focusin', focusIn as EventListener],
      [node, 'focusout', focusOut],
      [document, 'keydown', escape as EventListener],
    ];
    for (const [target, type, listener] of listeners) target.addEventListener(type, listener);
    return () => {
      clearTimeout(hoverTimer);
      for (const [target, type, listener] of listeners) target.removeEventListener(type, listener);
    };
  }, [node, openDelay, closeDelay, events.hover, events.focus, events.touch]);

  const shown = open && !!Real;
  const describedBy = [child?.props['aria-describedby'], shown ? labelId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <>
      {child ? cloneElement(child, { ref, 'aria-describedby': describedBy }) : children}
      {Real && node && <Real {...props} label={<span id={labelId}>{label}</span>} target={node} opened={open} disabled={disabled} />}
    </>
  );
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
