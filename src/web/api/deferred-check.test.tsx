/**
 * A form whose check is fetched after first paint (deferredValidator): a value typed while the
 * check is still loading is marked as soon as it arrives, not at the next keystroke.
 */
import { expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { renderApp } from '../test/render';
import { deferredValidator } from './field-errors';

type Values = { rpm: string };
let arrive: ((check: (v: Values) => Record<string, string>) => void) | undefined;
const check = deferredValidator<Values>(() => new Promise((resolve) => (arrive = resolve)));

function RateForm() {
  const form = useForm<Values>({ initialValues: { rpm: '100' }, validate: check.validate, validateInputOnChange: true });
  check.useSchemaCheck(form);
  return <TextInput label="Max requests per minute" {...form.getInputProps('rpm')} />;
}

it('marks a value typed before the check arrived once it arrives', async () => {
  const { user } = renderApp(<RateForm />);
  const field = screen.getByLabelText('Max requests per minute');
  await user.clear(field);
  await user.type(field, '1001');
  expect(screen.queryByText('Must be 10-1,000')).toBeNull(); // nothing to check with yet
  await expect.poll(() => arrive).toBeDefined();
  arrive!((values): Record<string, string> => (Number(values.rpm) > 1000 ? { rpm: 'Must be 10-1,000' } : {}));
  expect(await screen.findByText('Must be 10-1,000')).toBeTruthy();
  expect(field.getAttribute('aria-invalid')).toBe('true');
});
