/**
 * One line of text that ends in '…' when it does not fit (a long dealer name never widens
 * the page), with the full text in a tooltip on hover, keyboard focus and touch. The tooltip and
 * the focus stop exist only while the text is actually cut; a link (`href` or `to`) is focusable
 * anyway. A file name is cut in the middle instead (FileName): its end tells A/B variants apart.
 */
import { useEffect, useState, type ReactNode, type Ref } from 'react';
import { Anchor, Text, type MantineSize } from '@mantine/core';
import { Tooltip } from './deferred';
import { Link } from 'react-router';

interface Props {
  /** The full text (also the tooltip). */
  children: string;
  /** In-app link target: renders a router link. */
  to?: string;
  fw?: number;
  size?: MantineSize;
  c?: string;
  testId?: string;
}

/**
 * True while the element's text is wider than its box (re-checked whenever either changes size).
 * A callback ref, so that the element is measured once React has mounted it.
 */
function useIsCut(text: string) {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [cut, setCut] = useState(false);
  useEffect(() => {
    if (!el) return;
    const check = () => setCut(el.scrollWidth > el.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
  }, [el, text]);
  return { ref: setEl, cut };
}

/** A truncated line of text or link with its full text on hover and focus. */
export function Truncated({ children, to, fw, size, c, testId }: Props): ReactNode {
  const { ref, cut } = useIsCut(children);
  const common = { fw, size, c, truncate: true as const, 'data-testid': testId, 'data-truncated': cut || undefined, style: { display: 'block', maxWidth: '100%' } };
  const body = to ? (
    <Anchor ref={ref as Ref<HTMLAnchorElement>} component={Link} to={to} {...common}>
      {children}
    </Anchor>
  ) : (
    <Text ref={ref as Ref<HTMLParagraphElement>} tabIndex={cut ? 0 : undefined} {...common}>
      {children}
    </Text>
  );
  return (
    <Tooltip label={children} disabled={!cut} multiline maw={360} openDelay={200} style={{ overflowWrap: 'anywhere' }}>
      {body}
    </Tooltip>
  );
}

/** How many characters at the end of a file name always show: the variant part, size and extension ('_1920x300_b.jpg'). */
const FILE_NAME_TAIL = 16;

/**
 * A file name on one line, cut in the middle when it does not fit: the start ends in '…' and the
 * last FILE_NAME_TAIL characters always show, so 'new_2026_honda_civic_sport_holiday_a.jpg' and its
 * '_b.jpg' variant stay apart; the full name is in a tooltip on hover and focus while cut.
 */
export function FileName({ children, fw, size, c, testId }: Omit<Props, 'to'>): ReactNode {
  const { ref, cut } = useIsCut(children);
  const at = Math.max(0, children.length - FILE_NAME_TAIL);
  return (
    <Tooltip label={children} disabled={!cut} multiline maw={360} openDelay={200} style={{ overflowWrap: 'anywhere' }}>
      <Text fw={fw} size={size} c={c} tabIndex={cut ? 0 : undefined} data-testid={testId} data-truncated={cut || undefined} style={{ display: 'flex', minWidth: 0, maxWidth: '100%', whiteSpace: 'nowrap' }}>
        <span ref={ref} style={{ overflow: 'hidden', textOverflow: 'ellipsis', minWidth: 0 }}>
          {children.slice(0, at)}
        </span>
        <span style={{ flex: 'none' }}>{children.slice(at)}</span>
      </Text>
    </Tooltip>
  );
}
