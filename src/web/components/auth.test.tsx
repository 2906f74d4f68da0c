/** Role-dependent controls: one hook decides whether the signed-in user may change dealer data. */
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import type { Role } from '../../domain/schemas';
import { renderApp, userOf } from '../test/render';
import { useAuth, useCanEdit } from './auth';

function Probe() {
  const { status } = useAuth();
  const canEdit = useCanEdit();
  return <p>{status === 'loading' ? 'loading' : `${status}: ${canEdit ? 'can edit' : 'view only'}`}</p>;
}

describe('useCanEdit', () => {
  it.each<[Role, string]>([
    ['admin', 'signed-in: can edit'],
    ['dealer-manager', 'signed-in: can edit'],
    ['viewer', 'signed-in: view only'],
  ])('%s -> %s', async (role, shown) => {
    renderApp(<Probe />, { user: userOf(role) });
    expect(await screen.findByText(shown)).toBeTruthy();
  });

  it('is false while no one is signed in', async () => {
    renderApp(<Probe />, { user: null });
    expect(await screen.findByText('signed-out: view only')).toBeTruthy();
  });
});
