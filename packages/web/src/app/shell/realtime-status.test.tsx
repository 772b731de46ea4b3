import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '@/app/query-client';
import { fakeServer, TEST_USER } from '@/test/fake-server';
import { FakeWebSocket } from '@/test/fake-websocket';
import { TAB_CLIENT_ID } from '@/lib/client-id';
import { RealtimeProvider, useEntitySubscription, useRealtime } from '@/lib/realtime';
import { SessionProvider, useSession } from '@/lib/session';
import { RealtimeNotifications, RealtimeStatusBadge } from './realtime-status';

const entitiesQuery = vi.fn(async () => ['entity']);
beforeEach(() => entitiesQuery.mockClear());

function Probe() {
  const { user, replaceUser } = useSession();
  const { status } = useRealtime();
  useQuery({ queryKey: ['entities', { search: '' }], queryFn: entitiesQuery });
  useEntitySubscription('entity-1');
  return (
    <div>
      <p>user: {user ? 'signed in' : 'none'}</p>
      <p>status: {status}</p>
      <button type="button" onClick={() => user && replaceUser({ ...user, apiKey: 'eng_new_key' })}>
        new key
      </button>
      <RealtimeStatusBadge />
      <RealtimeNotifications />
    </div>
  );
}

function renderProvider(apiKey: string | null = TEST_USER.apiKey) {
  localStorage.setItem('auth_token', 'valid-token');
  fakeServer({ 'GET /auth/me': () => ({ status: 200, body: { ...TEST_USER, apiKey } }) });
  const router = createMemoryRouter([
    {
      path: '/',
      element: (
        <SessionProvider>
          <RealtimeProvider>
            <Probe />
          </RealtimeProvider>
        </SessionProvider>
      ),
    },
  ]);
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

async function connectedSocket() {
  await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
  const socket = FakeWebSocket.latest;
  act(() => socket.accept());
  expect(await screen.findByText('status: connected')).toBeInTheDocument();
  return socket;
}

describe('realtime in the shell (RealtimeProvider, badge, notifications)', () => {
  it('connects with the signed-in user’s API key and shows Connected', async () => {
    renderProvider();
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    expect(FakeWebSocket.latest.url).toBe(
      `ws://${window.location.host}/ws/connect?api_key=${TEST_USER.apiKey}&space=default`,
    );
    expect(screen.getByRole('status', { name: 'Realtime connection: Connecting' })).toBeVisible();
    const socket = await connectedSocket();
    expect(screen.getByRole('status', { name: 'Realtime connection: Connected' })).toBeVisible();
    expect(socket.sentTypes).toEqual(['subscribe_to_graph_changes', 'subscribe_to_entity']);
  });

  it('shows Unknown and opens nothing when the user has no API key', async () => {
    renderProvider(null);
    expect(await screen.findByText('user: signed in')).toBeInTheDocument();
    expect(screen.getByText('status: unknown')).toBeInTheDocument();
    expect(screen.getByRole('status', { name: 'Realtime connection: Unknown' })).toBeVisible();
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it('turns each event into a dismissable notification and refreshes affected queries', async () => {
    renderProvider();
    const socket = await connectedSocket();
    await waitFor(() => expect(entitiesQuery).toHaveBeenCalledTimes(1));

    act(() =>
      socket.event('entity_created', 1, { entityId: 'a', id: 'a', name: 'Alice', type: 'person' }),
    );
    const log = screen.getByRole('log');
    expect(log).toHaveTextContent('Entity "Alice" created');
    await waitFor(() => expect(entitiesQuery).toHaveBeenCalledTimes(2));

    act(() =>
      socket.event('relation_created', 2, {
        relationId: 'r',
        id: 'r',
        fromEntityId: 'a',
        toEntityId: 'b',
        relationType: 'uses',
      }),
    );
    expect(log).toHaveTextContent('Relation "Uses" created');
    // A relation does not change the entity list.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(entitiesQuery).toHaveBeenCalledTimes(2);

    await userEvent.click(screen.getByRole('button', { name: 'Dismiss: Entity "Alice" created' }));
    expect(log).not.toHaveTextContent('Alice');
    expect(log).toHaveTextContent('Relation "Uses" created');
  });

  it('shows a card only for changes made elsewhere; this tab’s own changes refresh quietly', async () => {
    renderProvider();
    const socket = await connectedSocket();
    await waitFor(() => expect(entitiesQuery).toHaveBeenCalledTimes(1));
    const created = (seq: number, name: string, origin?: string) =>
      act(() =>
        socket.receive({
          id: `event-${seq}`,
          type: 'entity_created',
          seq,
          payload: { entityId: name, id: name, name, type: 'person', seq },
          ...(origin ? { origin } : {}),
        }),
      );

    created(1, 'Mine', TAB_CLIENT_ID);
    // Its toast said so already; the list still reloads.
    await waitFor(() => expect(entitiesQuery).toHaveBeenCalledTimes(2));
    expect(screen.getByRole('log')).toBeEmptyDOMElement();

    created(2, 'From another tab', 'tab-0123456789abcdef');
    created(3, 'From an agent');
    const log = screen.getByRole('log');
    expect(log).toHaveTextContent('Entity "From another tab" created');
    expect(log).toHaveTextContent('Entity "From an agent" created');
    expect(log).not.toHaveTextContent('Mine');
  });

  it('replaces the connection when the user’s key changes', async () => {
    renderProvider();
    const first = await connectedSocket();
    await userEvent.click(screen.getByRole('button', { name: 'new key' }));
    expect(first.closedWith?.code).toBe(1000);
    expect(FakeWebSocket.instances).toHaveLength(2);
    expect(FakeWebSocket.latest.url).toContain('api_key=eng_new_key');
    act(() => FakeWebSocket.latest.accept());
    expect(await screen.findByText('status: connected')).toBeInTheDocument();
  });

  it('closes the connection normally on unmount', async () => {
    const view = renderProvider();
    const socket = await connectedSocket();
    view.unmount();
    expect(socket.closedWith?.code).toBe(1000);
  });

  it('opens again once when a connected socket is closed as refused with the same key (a new role)', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    renderProvider();
    const socket = await connectedSocket();
    act(() => socket.serverClose(4401));
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    expect(FakeWebSocket.latest.url).toContain(`api_key=${TEST_USER.apiKey}`);
    // Refused again: no loop, the Reconnect button instead.
    act(() => {
      FakeWebSocket.latest.open();
      FakeWebSocket.latest.serverClose(4401);
    });
    expect(
      await screen.findByRole('button', { name: /Disconnected\s*Reconnect/ }),
    ).toBeInTheDocument();
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('offers a reconnect after the server refuses the key', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    renderProvider();
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    act(() => {
      FakeWebSocket.latest.open();
      FakeWebSocket.latest.serverClose(4401);
    });
    const retry = await screen.findByRole('button', { name: /Disconnected\s*Reconnect/ });
    await userEvent.click(retry);
    expect(FakeWebSocket.instances.length).toBeGreaterThanOrEqual(2);
    expect(screen.getByText('status: connecting')).toBeInTheDocument();
  });
});
