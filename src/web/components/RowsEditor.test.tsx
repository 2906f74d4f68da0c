/** The one key -> value rows editor (Configuration, Upsell Rules, the manufacturer form). */
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderApp } from '../test/render';
import { RowsEditor, type RowsEditorProps } from './RowsEditor';
import { toRecord, toRows, type Row } from './rows';

/** The editor holding its rows as a form does; `seen` receives every change. */
function Harness({ initial, seen, ...props }: Omit<RowsEditorProps, 'rows' | 'onChange'> & { initial: Record<string, string>; seen?: (rows: Row[]) => void }) {
  const [rows, setRows] = useState(() => toRows(initial));
  return (
    <RowsEditor
      {...props}
      rows={rows}
      onChange={(next) => {
        setRows(next);
        seen?.(next);
      }}
    />
  );
}

const text = (name: string) => screen.getByRole<HTMLInputElement>('textbox', { name });

describe('RowsEditor', () => {
  it('shows one numbered pair of fields per row, sorted by key', () => {
    renderApp(<Harness initial={{ 'honda civic': 'civic', accord: 'accord' }} keyLabel="Inventory model" valueLabel="Standard model" empty="No mappings" />);
    expect([text('Inventory model 1').value, text('Standard model 1').value, text('Inventory model 2').value]).toEqual(['accord', 'accord', 'honda civic']);
  });

  it('edits a value in place and hands the form rows that make the intended record', async () => {
    const seen = vi.fn();
    const { user } = renderApp(<Harness initial={{ crv: 'cr-v' }} keyLabel="Inventory model" valueLabel="Standard model" empty="No mappings" seen={seen} />);
    await user.clear(text('Standard model 1'));
    await user.type(text('Standard model 1'), 'pilot');
    expect(toRecord(seen.mock.lastCall![0])).toEqual({ crv: 'pilot' });
  });

  it('removes the row whose Remove button is pressed, and says when none are left', async () => {
    const seen = vi.fn();
    const { user } = renderApp(<Harness initial={{ a: '1', b: '2' }} keyLabel="Key" valueLabel="Value" empty="No mappings yet" seen={seen} />);
    await user.click(screen.getByRole('button', { name: 'Remove a' }));
    expect(toRecord(seen.mock.lastCall![0])).toEqual({ b: '2' });
    expect(text('Key 1').value).toBe('b');
    await user.click(screen.getByRole('button', { name: 'Remove b' }));
    expect(screen.getByText('No mappings yet')).toBeTruthy();
  });

  it('adds an empty row with its Add button; an empty row is not stored', async () => {
    const seen = vi.fn();
    const { user } = renderApp(<Harness initial={{}} title="Default model mappings" keyLabel="Key" valueLabel="Value" empty="None yet." addLabel="Add Row" seen={seen} />);
    expect(screen.getByText('Default model mappings')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Add Row' }));
    expect(seen.mock.lastCall![0]).toHaveLength(1);
    expect(toRecord(seen.mock.lastCall![0])).toEqual({});
    await user.type(text('Key 1'), ' civic ');
    expect(toRecord(seen.mock.lastCall![0])).toEqual({});
    await user.type(text('Value 1'), 'Civic');
    expect(toRecord(seen.mock.lastCall![0])).toEqual({ civic: 'Civic' });
  });

  it('is read-only without canEdit: fields disabled, no Remove or Add buttons', () => {
    renderApp(<Harness initial={{ a: '1' }} canEdit={false} keyLabel="Key" valueLabel="Value" empty="None" addLabel="Add Row" />);
    expect(text('Key 1').disabled).toBe(true);
    expect(text('Value 1').disabled).toBe(true);
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says there is nothing to choose from when a select has no options, instead of empty selects', () => {
    renderApp(<Harness initial={{ civic: 'accord' }} keyOptions={[]} valueOptions={[]} keyLabel="Model" valueLabel="Upsell target" empty="No rules" noOptions="No models available" addLabel="Add Rule" />);
    expect(screen.getByText('No models available')).toBeTruthy();
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add Rule' })).toBeNull();
  });

  it("shows a typed value's hint (a standard model's display name) inside its field", () => {
    renderApp(<Harness initial={{ crv: 'cr-v', x: 'unknown' }} keyLabel="Key" valueLabel="Value" empty="None" valueHint={(v) => (v === 'cr-v' ? 'CR-V' : null)} />);
    const hints = screen.getAllByTestId('model-display-name');
    expect(hints.map((h) => h.textContent)).toEqual(['CR-V']);
  });

  it('offers the options by their labels in a select, and a stored value outside them too', async () => {
    const seen = vi.fn();
    const { user } = renderApp(<Harness initial={{ civic: 'retired' }} keyLabel="Model" valueLabel="Upsell target" keyOptions={['civic', 'accord']} valueOptions={['civic', 'accord']} optionLabel={(m) => m.toUpperCase()} empty="None" seen={seen} />);
    // The select arrives after the first paint (components/deferred.tsx); the stored value shows by its label.
    await vi.waitFor(() => expect(text('Upsell target 1').disabled).toBe(false), { timeout: 5000 });
    const target = text('Upsell target 1');
    expect(target.value).toBe('RETIRED');
    await user.click(target);
    const listbox = await screen.findByRole('listbox');
    expect(within(listbox).getAllByRole('option').map((o) => o.textContent)).toEqual(['CIVIC', 'ACCORD', 'RETIRED']);
    await user.click(within(listbox).getByRole('option', { name: 'ACCORD' }));
    expect(toRecord(seen.mock.lastCall![0])).toEqual({ civic: 'accord' });
  });

  it('on a phone stacks each row, every field with its own label, and still removes the right row', async () => {
    // The app's phone query (components/responsive.ts) matches, as at 390 px.
    const wide = window.matchMedia;
    window.matchMedia = (query: string) => ({ ...wide(query), matches: query.includes('max-width') });
    try {
      const seen = vi.fn();
      const { user } = renderApp(<Harness initial={{ crv: 'cr-v', hrv: 'hr-v' }} keyLabel="Inventory model" valueLabel="Standard model" empty="None" seen={seen} />);
      expect(screen.getAllByText('Inventory model')).toHaveLength(2);
      expect(screen.getAllByText('Standard model')).toHaveLength(2);
      await user.click(screen.getByRole('button', { name: 'Remove crv' }));
      expect(toRecord(seen.mock.lastCall![0])).toEqual({ hrv: 'hr-v' });
    } finally {
      window.matchMedia = wide;
    }
  });
});
