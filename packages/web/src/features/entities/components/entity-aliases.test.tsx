import type { DuplicateList, Entity, EntityUpdateInput } from '@engram/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InProcessLayoutWorker } from '@/components/graph-canvas/layout/in-process-worker';
import { fakeServer, TEST_USER, testUserAs, type FakeRequest } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

// Issue 59 on the entity page: its aliases (added and removed in place) and
// its possible duplicates.

const ADA: Entity = {
  id: 'e-ada',
  name: 'Ada Lovelace',
  type: 'person',
  aliases: ['A. Lovelace'],
  metadata: {},
  observations: [],
  observationsCount: 0,
  createdAt: '2027-01-05T10:00:00.000Z',
  updatedAt: '2027-01-06T10:00:00.000Z',
};

const PAIRS: DuplicateList = {
  candidates: [
    {
      id: 'pair-1',
      score: 0.86,
      reasons: ['one name is an abbreviation of the other', 'same type'],
      entities: [
        {
          id: 'e-ada',
          name: 'Ada Lovelace',
          type: 'person',
          observationsCount: 0,
          relationsCount: 0,
        },
        { id: 'e-al', name: 'Ada L.', type: 'person', observationsCount: 2, relationsCount: 1 },
      ],
    },
  ],
  nextCursor: null,
  upToDate: true,
};

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => undefined;
  Element.prototype.scrollIntoView ??= () => undefined;
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});

beforeEach(() => {
  vi.stubGlobal(
    'Worker',
    class extends InProcessLayoutWorker {
      constructor(_url: URL, _options?: WorkerOptions) {
        super();
      }
    },
  );
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});

interface Options {
  user?: object;
  duplicates?: DuplicateList;
  /** The answer to a PUT, instead of keeping what was sent. */
  put?: (request: FakeRequest) => { status: number; body?: unknown };
}

/** Ada's page against a fake server that keeps the aliases it is sent, as Engram does. */
function server({ user = TEST_USER, duplicates = PAIRS, put }: Options = {}) {
  localStorage.setItem('auth_token', 'valid-token');
  let current = ADA;
  return fakeServer({
    'GET /auth/me': () => ({ status: 200, body: user }),
    'GET /api/entities/e-ada': () => ({ status: 200, body: current }),
    'PUT /api/entities/e-ada':
      put ??
      ((request) => {
        const input = request.body as EntityUpdateInput;
        current = { ...current, ...input, aliases: input.aliases ?? current.aliases } as Entity;
        return { status: 200, body: current };
      }),
    'GET /api/relations': () => ({
      status: 200,
      body: { relations: [], total: 0, nextOffset: null, truncated: false },
    }),
    'GET /api/relations/graph/data': () => ({
      status: 200,
      body: {
        entities: [{ id: 'e-ada', name: 'Ada Lovelace', type: 'person', observationsCount: 0 }],
        relations: [],
      },
    }),
    'GET /api/duplicates': () => ({ status: 200, body: duplicates }),
  });
}

const puts = (requests: FakeRequest[]) => requests.filter((request) => request.method === 'PUT');

async function openAda() {
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/entities/e-ada');
  await screen.findByRole('heading', { level: 1, name: 'Ada Lovelace' }, { timeout: 5000 });
  return { user, ...app, aliases: screen.getByRole('region', { name: 'Aliases' }) };
}

const shownAliases = (region: HTMLElement) =>
  within(region)
    .queryAllByRole('listitem')
    .map((item) => item.textContent);

describe('aliases on the entity page', { timeout: 20_000 }, () => {
  it('adds one, sending the name, the type and the whole list', async () => {
    const { requests } = server();
    const { user, aliases } = await openAda();
    expect(shownAliases(aliases)).toEqual(['A. Lovelace']);
    await user.type(within(aliases).getByRole('textbox', { name: 'New alias' }), '  Countess  ');
    await user.click(within(aliases).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(shownAliases(aliases)).toEqual(['A. Lovelace', 'Countess']));
    expect(puts(requests).map((request) => request.body)).toEqual([
      { name: 'Ada Lovelace', type: 'person', aliases: ['A. Lovelace', 'Countess'] },
    ]);
    expect(within(aliases).getByRole('textbox', { name: 'New alias' })).toHaveValue('');
  });

  it('removes one', async () => {
    const { requests } = server();
    const { user, aliases } = await openAda();
    await user.click(within(aliases).getByRole('button', { name: 'Remove alias A. Lovelace' }));
    await waitFor(() => expect(shownAliases(aliases)).toEqual([]));
    expect(puts(requests)[0]?.body).toEqual({
      name: 'Ada Lovelace',
      type: 'person',
      aliases: [],
    });
  });

  it('says why beside the field: its own rules, and the server’s 409', async () => {
    const { requests } = server({
      put: () => ({
        status: 409,
        body: { error: '“Grace” is already the name of another entity', code: 'CONFLICT' },
      }),
    });
    const { user, aliases } = await openAda();
    const field = within(aliases).getByRole('textbox', { name: 'New alias' });
    await user.type(field, 'A. Lovelace');
    await user.click(within(aliases).getByRole('button', { name: 'Add' }));
    expect(within(aliases).getByRole('alert')).toHaveTextContent('That is already an alias');
    expect(puts(requests)).toHaveLength(0);

    await user.clear(field);
    await user.type(field, 'Grace');
    await user.click(within(aliases).getByRole('button', { name: 'Add' }));
    expect(await within(aliases).findByRole('alert')).toHaveTextContent(
      '“Grace” is already the name of another entity',
    );
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveValue('Grace');
    expect(shownAliases(aliases)).toEqual(['A. Lovelace']);
  });

  it('lets a viewer read them only', async () => {
    server({ user: testUserAs('viewer') });
    const { aliases } = await openAda();
    expect(shownAliases(aliases)).toEqual(['A. Lovelace']);
    expect(within(aliases).queryByRole('button')).toBeNull();
    expect(within(aliases).queryByRole('textbox')).toBeNull();
  });
});

describe('possible duplicates on the entity page', { timeout: 20_000 }, () => {
  it('lists the other entity with the score and reasons, and Review opens its pairs', async () => {
    const { requests } = server();
    await openAda();
    const panel = await screen.findByRole('region', { name: 'Possible duplicates' });
    expect(within(panel).getByRole('link', { name: 'Ada L.' })).toHaveAttribute(
      'href',
      '/entities/e-al',
    );
    expect(within(panel).getByText('86%')).toBeInTheDocument();
    expect(
      within(panel).getByText('one name is an abbreviation of the other · same type'),
    ).toBeInTheDocument();
    expect(within(panel).getByRole('link', { name: 'Review Ada L.' })).toHaveAttribute(
      'href',
      '/duplicates?entity=e-ada',
    );
    const read = requests.find((request) => request.path === '/api/duplicates');
    expect(Object.fromEntries(read!.query)).toEqual({ limit: '10', entityId: 'e-ada' });
  });

  it('is not there when there are none', async () => {
    const { requests } = server({ duplicates: { ...PAIRS, candidates: [] } });
    await openAda();
    await waitFor(() =>
      expect(requests.some((request) => request.path === '/api/duplicates')).toBe(true),
    );
    expect(screen.queryByRole('region', { name: 'Possible duplicates' })).toBeNull();
  });
});
