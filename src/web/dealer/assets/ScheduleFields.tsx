/**
 * The promotion window inputs: start and end as local date-times
 * in the dealer's time zone, shared by the Asset Manager card's Schedule dialog and the upload panel.
 *
 * Native `<input type="datetime-local">` through Mantine's TextInput rather than @mantine/dates:
 * that package (plus dayjs) is not installed, and the native control is keyboard- and
 * screen-reader-usable on every browser we support, gives phones their own picker, and yields
 * exactly the `YYYY-MM-DDTHH:mm` text the API reads in the dealer's zone, so nothing converts on
 * the client.
 */
import { Group, SimpleGrid, Text, TextInput } from '@mantine/core';
import { Clock } from 'lucide-react';

/** A window as the inputs hold it: local `YYYY-MM-DDTHH:mm` texts, '' = open. */
export interface WindowValue {
  startsAt: string;
  endsAt: string;
}

/** The form's own check (the server checks again): the end must be after the start. */
export function windowErrors(v: WindowValue): Partial<Record<keyof WindowValue, string>> {
  // Same fixed-width format on both sides: text order is time order.
  return v.startsAt && v.endsAt && v.endsAt <= v.startsAt ? { endsAt: 'Must be after the start' } : {};
}

/** Start and end inputs with the dealer's time zone named; `errors` under the fields; `sideBySide` from 'sm' up (wide panels), else stacked (dialogs). */
export function ScheduleFields({
  value,
  onChange,
  timeZone,
  errors = {},
  disabled,
  sideBySide = false,
}: {
  value: WindowValue;
  onChange: (v: WindowValue) => void;
  timeZone: string;
  errors?: Partial<Record<keyof WindowValue, string>>;
  disabled?: boolean;
  sideBySide?: boolean;
}) {
  return (
    <>
      <SimpleGrid cols={sideBySide ? { base: 1, sm: 2 } : 1} spacing="sm">
        <TextInput
          type="datetime-local"
          label="Starts"
          description="Empty: from now"
          value={value.startsAt}
          onChange={(e) => onChange({ ...value, startsAt: e.currentTarget.value })}
          error={errors.startsAt}
          disabled={disabled}
        />
        <TextInput
          type="datetime-local"
          label="Ends"
          description="Empty: no end"
          value={value.endsAt}
          onChange={(e) => onChange({ ...value, endsAt: e.currentTarget.value })}
          error={errors.endsAt}
          disabled={disabled}
        />
      </SimpleGrid>
      <Group gap={6} wrap="nowrap">
        <Clock size={14} aria-hidden />
        <Text size="xs" c="dimmed">
          Times are in the dealer&apos;s time zone, {timeZone}. The banner shows from the start until the end.
        </Text>
      </Group>
    </>
  );
}
