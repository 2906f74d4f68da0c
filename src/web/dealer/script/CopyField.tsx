/** A read-only code line with a copy button whose confirmation lasts COPY_CONFIRMATION_MS (spec 02 §2, §9). */
import { Button, Code, CopyButton, Group } from '@mantine/core';
import { Check, Copy } from 'lucide-react';
import { COPY_CONFIRMATION_MS } from '../../../domain/constants';

/**
 * `value` in a code box with a 'Copy' button that reads 'Copied!' for 2 seconds; `shown`, when
 * given, is what the box shows instead (a long value abridged), the button still copying `value`.
 */
export function CopyField({ value, label, shown }: { value: string; label: string; shown?: string }) {
  return (
    <Group wrap="nowrap" gap="xs" align="flex-start">
      {/* A long value (the inline tag is several KB) scrolls inside the box instead of making the page and
          the button thousands of pixels tall on a phone; the box takes focus so a keyboard can scroll it. */}
      <Code block tabIndex={0} aria-label={label} style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: '16rem', overflowY: 'auto' }} fz="sm">
        {shown ?? value}
      </Code>
      <CopyButton value={value} timeout={COPY_CONFIRMATION_MS}>
        {({ copied, copy }) => (
          <Button
            variant={copied ? 'filled' : 'light'}
            color={copied ? 'teal' : undefined}
            onClick={copy}
            leftSection={copied ? <Check size={14} /> : <Copy size={14} />}
            aria-label={copied ? `${label} copied` : `Copy ${label}`}
            style={{ flexShrink: 0 }}
            miw={96}
          >
            {copied ? 'Copied!' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
