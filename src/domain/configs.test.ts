/** Preview's sentence for the upsell choice. */
import { describe, expect, it } from 'vitest';
import { upsellChoiceText, type PreviewCandidate } from './configs';

const c = (model: string, weight: number, label: PreviewCandidate['label'], rule = false): PreviewCandidate => ({ model, weight, label, rule });

describe('upsellChoiceText', () => {
  it('names the winner over the others, with labels and weights', () => {
    expect(upsellChoiceText('CR-V', [c('Passport', 8, 'High Priority'), c('Pilot', 5, 'Normal Priority', true)])).toBe(
      'CR-V → Passport (High Priority, 8) over Pilot (Normal Priority, 5)',
    );
    expect(upsellChoiceText('X', [c('A', 9, 'High Priority'), c('B', 4, 'Normal Priority'), c('C', 1, 'Low Priority')])).toBe(
      'X → A (High Priority, 9) over B (Normal Priority, 4), C (Low Priority, 1)',
    );
  });

  it('names the tie-break on equal weights', () => {
    expect(upsellChoiceText('CR-V', [c('Pilot', 5, 'Normal Priority', true), c('Passport', 5, 'Normal Priority')])).toMatch(/; equal weights: the upsell rule's target$/);
    expect(upsellChoiceText('Prologue', [c('CR-V', 5, 'Normal Priority'), c('Pilot', 5, 'Normal Priority')])).toMatch(/; equal weights: inventory priority, then catalog order$/);
  });

  it('says when there is one candidate or none', () => {
    expect(upsellChoiceText('Civic', [c('Accord', 2, 'Low Priority', true)])).toBe('Civic → Accord (Low Priority, 2): the only candidate');
    expect(upsellChoiceText('Civic Si', [])).toBe('Civic Si has no upsell candidate: the upsell slot shows Civic Si itself');
  });
});
