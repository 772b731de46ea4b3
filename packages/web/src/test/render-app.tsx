import { QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderResult } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { createQueryClient } from '@/app/query-client';
import { appRoutes } from '@/app/router';

export interface RenderedApp extends RenderResult {
  router: ReturnType<typeof createMemoryRouter>;
}

/** The real route table in memory, starting at `path`. */
export function renderApp(path: string): RenderedApp {
  const router = createMemoryRouter(appRoutes, { initialEntries: [path] });
  const view = render(
    <QueryClientProvider client={createQueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...view, router };
}
