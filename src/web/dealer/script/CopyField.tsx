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
    <Group wrap="nowrap" gap="xs" align="stretch">
      <Code block style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all', display: 'flex', alignItems: 'center' }} fz="sm">
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
            style={{ flexShrink: 0, height: 'auto', minHeight: 36 }}
            miw={96}
          >
            {copied ? 'Copied!' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
