import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { forgetAccountId } from '@/lib/account/account-store';
import { FakeWebSocket } from './fake-websocket';

// A busy CI machine renders a list of hundreds of options in more than the
// library's default second: waits give up after 5 s instead (a passing wait
// returns as soon as its condition holds, so this costs nothing when green).
configure({ asyncUtilTimeout: 5000 });

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
