/** The manufacturer drawer: its own check, what Save sends, and server refusals on their fields. */
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ManufacturerListItem } from '../../domain/admin';
import { server } from '../test/setup';
import { renderApp } from '../test/render';
import { ManufacturerForm } from './ManufacturerForm';

const HONDA: ManufacturerListItem = {
  id: 'honda',
  name: 'Honda',
  logoUrl: '',
  primaryColor: '#cc0000',
  secondaryColor: '#666666',
  models: [{ id: 'civic', name: 'Civic', displayName: 'Civic', category: 'sedan', msrp: { min: 24000, max: 30000 }, trims: [], isActive: true, priority: 1, upsellTargets: [] }],
  defaultModelMappings: { 'civic-si': 'Civic' },
  defaultUpsellRules: {},
  defaultTrimPatterns: {},
  providerCompatibility: [],
  assetNamingConvention: '',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  dealerCount: 1,
};

/** Records what the form sends; answers `answer` (the saved manufacturer by default). */
function saving(answer?: () => Response) {
  const bodies: unknown[] = [];
  server.use(
    http.put('/api/admin/manufacturers/:id', async ({ request }) => {
      bodies.push(await request.json());
      return answer?.() ?? HttpResponse.json({ manufacturer: HONDA });
    }),
    http.post('/api/admin/manufacturers', async ({ request }) => {
      bodies.push(await request.json());
      return answer?.() ?? HttpResponse.json({ manufacturer: HONDA }, { status: 201 });
    }),
  );
  return bodies;
}

/** Types a whole value into a field at once (one change event: the form re-checks once, not per key). */
const fill = (field: HTMLElement, value: string) => fireEvent.change(field, { target: { value } });

const refusal = (fields: Array<{ path: string; code: string; message: string }>) => () =>
  HttpResponse.json({ error: { code: 'INVALID', message: 'text the form does not read', fields } }, { status: 400 });

describe('ManufacturerForm', () => {
  it('refuses to add a manufacturer without a name, in its own words, and sends nothing', async () => {
    const bodies = saving();
    const { user } = renderApp(<ManufacturerForm manufacturer={null} onClose={() => undefined} />);
    await user.click(screen.getByRole('button', { name: 'Add Manufacturer' }));
    expect(await screen.findByText('Name is required')).toBeTruthy();
    expect(bodies).toEqual([]);
  });

  it('saves the edited manufacturer with its default mappings as a record, then closes', async () => {
    const bodies = saving();
    const onClose = vi.fn();
    const { user } = renderApp(<ManufacturerForm manufacturer={HONDA} onClose={onClose} />);
    const name = screen.getByRole('textbox', { name: 'Name' });
    fill(name, '  Honda Motor  ');
    await user.click(screen.getByRole('button', { name: 'Save Manufacturer' }));
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ name: 'Honda Motor', defaultModelMappings: { 'civic-si': 'Civic' }, defaultUpsellRules: {}, models: [{ id: 'civic', name: 'Civic', msrp: { min: 24000, max: 30000 } }] });
  });

  it("marks the field a server refusal names by path and sums it up by the field's label", async () => {
    saving(refusal([{ path: 'logoUrl', code: 'custom', message: 'Must be empty or a URL starting with http:// or https://' }]));
    const onClose = vi.fn();
    const { user } = renderApp(<ManufacturerForm manufacturer={HONDA} onClose={onClose} />);
    fill(screen.getByRole('textbox', { name: 'Logo URL' }), 'logo.png');
    await user.click(screen.getByRole('button', { name: 'Save Manufacturer' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(/Logo URL: Must be empty or a URL starting with http:\/\/ or https:\/\//)).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Logo URL' }).getAttribute('aria-invalid')).toBe('true');
    expect(onClose).not.toHaveBeenCalled();
  });

  it("opens the tab of a refused default map and shows the problem under its editor", async () => {
    saving(refusal([{ path: 'defaultModelMappings.civic-si', code: 'too_big', message: 'At most 100 characters' }]));
    const { user } = renderApp(<ManufacturerForm manufacturer={HONDA} onClose={() => undefined} />);
    fill(screen.getByRole('textbox', { name: 'Logo URL' }), 'https://example.com/honda.png');
    await user.click(screen.getByRole('button', { name: 'Save Manufacturer' }));
    expect((await screen.findByRole('tab', { name: 'Defaults' })).getAttribute('aria-selected')).toBe('true');
    expect(await screen.findByText('At most 100 characters')).toBeTruthy();
  });

  it("says why Save is disabled while a model has no name, and Show brings that model's name into view", async () => {
    const bodies = saving();
    const { user } = renderApp(<ManufacturerForm manufacturer={HONDA} onClose={() => undefined} />);
    await user.click(screen.getByRole('tab', { name: /^Models/ }));
    await user.click(screen.getByRole('button', { name: 'Add Model' }));
    const save = screen.getByRole('button', { name: 'Save Manufacturer' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    const why = screen.getByRole('status');
    expect(why.textContent).toMatch(/^Can't save yet: Model 2, name: .+\.Show$/);
    await user.click(screen.getByRole('tab', { name: 'Details' }));
    await user.click(within(why).getByRole('button', { name: 'Show' }));
    expect(screen.getByRole('tab', { name: /^Models/ }).getAttribute('aria-selected')).toBe('true');
    const names = screen.getAllByRole<HTMLInputElement>('textbox', { name: /^Name/ }).filter((f) => f.value === '');
    expect(names.length).toBeGreaterThan(0);
    // Focused, which scrolls the drawer to it.
    await vi.waitFor(() => expect(document.activeElement).toBe(names[0]));
    fill(names[0]!, 'Accord');
    expect(screen.queryByRole('status')).toBeNull();
    expect(save.disabled).toBe(false);
    expect(bodies).toEqual([]);
  });

  it('gives the server message itself when a refusal names no field', async () => {
    saving(() => HttpResponse.json({ error: { code: 'CONFLICT', message: 'A manufacturer with the id "honda" already exists.' } }, { status: 409 }));
    const { user } = renderApp(<ManufacturerForm manufacturer={null} onClose={() => undefined} />);
    fill(screen.getByRole('textbox', { name: 'Name' }), 'Honda');
    await user.click(screen.getByRole('button', { name: 'Add Manufacturer' }));
    expect(within(await screen.findByRole('alert')).getByText('A manufacturer with the id "honda" already exists.')).toBeTruthy();
  });
});

describe('ManufacturerForm Fill from models', () => {
  const model = (name: string, displayName = name) => ({ ...HONDA.models[0]!, id: name.toLowerCase(), name, displayName });
  const CATALOGUE: ManufacturerListItem = {
    ...HONDA,
    models: [model('Civic'), model('CR-V', 'CR-V Hybrid'), model('Pilot'), model('Passport')],
    defaultModelMappings: { 'civic-si': 'Civic', pilot: 'Passport' },
  };

  /** The form on its Defaults tab with the fill dialog open. */
  async function openFill() {
    const bodies = saving();
    const onClose = vi.fn();
    const { user } = renderApp(<ManufacturerForm manufacturer={CATALOGUE} onClose={onClose} />);
    await user.click(screen.getByRole('tab', { name: 'Defaults' }));
    await user.click(screen.getByRole('button', { name: 'Fill from models' }));
    const dialog = await screen.findByRole('dialog', { name: 'Fill mappings from models' });
    return { user, bodies, onClose, dialog };
  }
  const previewRows = (dialog: HTMLElement) =>
    within(within(dialog).getByRole('table', { name: 'Mappings the fill makes' }))
      .getAllByRole('row')
      .slice(1)
      .map((r) => within(r).getAllByRole('cell').map((c) => c.textContent));

  it('previews each model before anything changes: only models without a mapping, existing rows kept', async () => {
    const { dialog } = await openFill();
    expect(previewRows(dialog)).toEqual([
      ['Civic', 'Civic', 'Has a mapping'],
      ['CR-V', 'CR-V', 'Added'],
      ['Pilot', 'Pilot', 'Kept: maps to Passport'], // 'pilot' is already taken by the admin's own row
      ['Passport', 'Passport', 'Has a mapping'],
    ]);
    expect(within(dialog).getByTestId('fill-summary').textContent).toMatch(/^1 mapping to add\./);
    // Nothing in the form changed yet.
    expect(screen.getAllByRole('textbox', { name: /^Inventory model name \d+$/ })).toHaveLength(2);
  });

  it("fills the pattern with each model's key for all models, applies it to the form and saves it with the admin's rows", async () => {
    const { user, bodies, onClose, dialog } = await openFill();
    fill(within(dialog).getByRole('textbox', { name: 'Inventory model name' }), 'honda {key}');
    await user.click(within(dialog).getByRole('radio', { name: /^All models/ }));
    expect(previewRows(dialog)).toEqual([
      ['honda civic', 'Civic', 'Added'],
      ['honda crv', 'CR-V', 'Added'],
      ['honda pilot', 'Pilot', 'Added'],
      ['honda passport', 'Passport', 'Added'],
    ]);
    await user.click(within(dialog).getByRole('button', { name: 'Apply 4 mappings' }));
    await vi.waitFor(() => expect(screen.queryByRole('dialog', { name: 'Fill mappings from models' })).toBeNull());
    expect(screen.getAllByRole<HTMLInputElement>('textbox', { name: /^Inventory model name \d+$/ }).map((f) => f.value)).toEqual(['civic-si', 'pilot', 'honda civic', 'honda crv', 'honda pilot', 'honda passport']);
    await user.click(screen.getByRole('button', { name: 'Save Manufacturer' }));
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
    expect((bodies[0] as { defaultModelMappings: unknown }).defaultModelMappings).toEqual({
      'civic-si': 'Civic',
      pilot: 'Passport',
      'honda civic': 'Civic',
      'honda crv': 'CR-V',
      'honda pilot': 'Pilot',
      'honda passport': 'Passport',
    });
  });

  it('refuses a pattern that would give every model the same name, and Cancel changes nothing', async () => {
    const { user, dialog } = await openFill();
    fill(within(dialog).getByRole('textbox', { name: 'Inventory model name' }), 'honda');
    expect(within(dialog).getByText('Include {name}, {display}, {key} so each model gets its own name')).toBeTruthy();
    expect((within(dialog).getByRole('button', { name: 'Apply' }) as HTMLButtonElement).disabled).toBe(true);
    fill(within(dialog).getByRole('textbox', { name: 'Inventory model name' }), '{display}');
    expect(previewRows(dialog)[1]).toEqual(['CR-V Hybrid', 'CR-V', 'Added']);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.getAllByRole('textbox', { name: /^Inventory model name \d+$/ })).toHaveLength(2);
    expect(screen.queryByText('Unsaved changes')).toBeNull();
  });
});

describe('ManufacturerForm color picker', () => {
  /** Opens the form with an edit made and the primary color's picker open (its dropdown checked to be in the document). */
  async function openPicker() {
    const onClose = vi.fn();
    const { user } = renderApp(<ManufacturerForm manufacturer={HONDA} onClose={onClose} />);
    fill(screen.getByRole('textbox', { name: 'Name' }), 'Honda Motor'); // an unsaved edit: closing the drawer would ask to discard it
    const primary = () => screen.getByRole('textbox', { name: 'Primary color' }) as HTMLInputElement;
    await vi.waitFor(() => expect(primary().disabled).toBe(false), { timeout: 20_000 }); // the real field replaces its stand-in
    // The drawer moves focus into itself just after it opens; a click before that would lose the focus (and the picker) to it.
    await vi.waitFor(() => expect(screen.getByRole('dialog').contains(document.activeElement)).toBe(true));
    await user.click(primary());
    // The dropdown is open: its saturation area (the first of its sliders) is in the document.
    const [saturation] = await screen.findAllByRole('slider');
    expect(document.body.contains(saturation!)).toBe(true);
    return { user, onClose, primary, saturation: saturation! };
  }
  const pickerShown = () => screen.queryAllByRole('slider').length > 0;

  it('Escape pressed inside the dropdown closes the picker, not the form; the next Escape asks to discard the edits', async () => {
    const { user, onClose, primary, saturation } = await openPicker();
    fireEvent.keyDown(saturation, { key: 'Escape' });
    await vi.waitFor(() => expect(pickerShown()).toBe(false));
    expect(screen.queryByText('Discard changes?')).toBeNull();
    expect(onClose).not.toHaveBeenCalled();
    // Escape still closes the drawer once no picker is open: it asks first.
    await user.click(primary());
    await vi.waitFor(() => expect(pickerShown()).toBe(true));
    await user.keyboard('{Escape}');
    await vi.waitFor(() => expect(pickerShown()).toBe(false));
    expect(screen.queryByText('Discard changes?')).toBeNull();
    await user.keyboard('{Escape}');
    expect(await screen.findByText('Discard changes?')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  }, 60_000); // the picker arrives as a deferred chunk: slow on a busy 2-core machine
});
