/**
 * A show/hide toggle for Mantine's PasswordInput that keyboard and screen-reader users can use
 *: Mantine's own toggle is out of the tab order (tabIndex -1), hidden from assistive
 * technology and reacts to Space only. Spread the result into a PasswordInput.
 */
import { useState, type KeyboardEvent } from 'react';

/** Props for a PasswordInput: controlled visibility and a focusable, named toggle (Enter or Space). */
export function usePasswordToggle() {
  const [visible, setVisible] = useState(false);
  return {
    visible,
    onVisibilityChange: setVisible,
    visibilityToggleButtonProps: {
      tabIndex: 0,
      'aria-label': 'Show password',
      'aria-hidden': false,
      onKeyDown: (e: KeyboardEvent<HTMLButtonElement>) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          setVisible((v) => !v);
        }
      },
    },
  };
}
