import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '@/test/render-app';

describe('the pricing cards', () => {
  it('say how many people each plan is for, from the catalog', async () => {
    renderApp('/pricing');
    const card = async (name: string) => screen.findByRole('article', { name }, { timeout: 5000 });
    expect(within(await card('Free')).getByText('Single user')).toBeInTheDocument();
    expect(within(await card('Starter')).getByText('Single user')).toBeInTheDocument();
    expect(within(await card('Pro')).getByText('Up to 5 team members')).toBeInTheDocument();
    expect(within(await card('Power User')).getByText('Up to 25 team members')).toBeInTheDocument();
  });
});
