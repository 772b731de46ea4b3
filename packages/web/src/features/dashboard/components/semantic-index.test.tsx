import type { AnalyticsSummary } from '@engram/shared';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';
import { emptySummary } from '../usage-rules';

function openDashboard(summary: AnalyticsSummary) {
  localStorage.setItem('auth_token', 'valid-token');
  fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/analytics': () => ({ status: 200, body: summary }),
  });
  renderApp('/dashboard');
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('Dashboard: the semantic index line', () => {
  it('says how much is embedded, with the model, when the server embeds', async () => {
    openDashboard({
      ...emptySummary(),
      totalObservations: 1_250,
      embeddings: { model: 'nomic-embed-text', embedded: 1_204, pending: 46, lastError: null },
    });
    const line = await screen.findByTestId('semantic-index', {}, { timeout: 5000 });
    expect(line).toHaveTextContent(
      'Semantic index: 1,204 of 1,250 observations embedded (nomic-embed-text)',
    );
    expect(line).not.toHaveTextContent('Paused');
  });

  it('shows why it stopped', async () => {
    openDashboard({
      ...emptySummary(),
      embeddings: {
        model: 'nomic-embed-text',
        embedded: 0,
        pending: 3,
        lastError: 'The embedding service answered HTTP 503',
      },
    });
    const line = await screen.findByTestId('semantic-index', {}, { timeout: 5000 });
    expect(line).toHaveTextContent('Paused: The embedding service answered HTTP 503');
  });

  it('is absent on a server without embeddings', async () => {
    openDashboard({ ...emptySummary(), totalEntities: 7, embeddings: null });
    expect(
      await screen.findByRole(
        'heading',
        { level: 1, name: 'Knowledge Graph Dashboard' },
        { timeout: 5000 },
      ),
    ).toBeInTheDocument();
    await screen.findByRole('group', { name: 'Total Entities' });
    expect(screen.queryByTestId('semantic-index')).not.toBeInTheDocument();
    expect(screen.queryByText(/Semantic index/)).not.toBeInTheDocument();
  });
});
