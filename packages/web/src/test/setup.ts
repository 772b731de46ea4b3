import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { forgetAccountId } from '@/lib/account/account-store';
import { FakeWebSocket } from './fake-websocket';

beforeEach(() => {
  // No test talks to a real server: the signed-in shell's realtime client gets
  // a socket that stays 'Connecting' unless a test plays the server.
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
});

afterEach(() => {
  cleanup();
  // Back to the person's own account (the choice also lives in memory, per tab).
  forgetAccountId();
  localStorage.clear();
  sessionStorage.clear();
});

// jsdom has no layout; the router's scroll restoration calls this on every navigation.
window.scrollTo = () => undefined;
