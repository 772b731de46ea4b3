import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { FakeWebSocket } from './fake-websocket';

beforeEach(() => {
  // No test talks to a real server: the signed-in shell's realtime client gets
  // a socket that stays 'Connecting' unless a test plays the server.
  FakeWebSocket.reset();
  vi.stubGlobal('WebSocket', FakeWebSocket);
});

afterEach(() => {
  cleanup();
  localStorage.clear();
});

// jsdom has no layout; the router's scroll restoration calls this on every navigation.
window.scrollTo = () => undefined;
