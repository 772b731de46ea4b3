import { Link2 } from 'lucide-react';
import type { Location } from 'react-router';
import { useConnectingApp } from '../api/get-connecting-app';

/** The consent screen's request id when sign-in was reached from it (the guard's `from`). */
export function consentUidOf(state: unknown): string | undefined {
  const from = (state as { from?: Location } | null)?.from;
  if (from?.pathname !== '/oauth/consent') return undefined;
  return new URLSearchParams(from.search).get('uid') ?? undefined;
}

/**
 * Above the sign-in form during an app's connection: which app is asking and
 * where the browser goes back to, so a person knows why they are signing in.
 * Nothing while the request loads or when it is unknown.
 */
export function ConnectingAppNote({ uid }: { uid: string }) {
  const app = useConnectingApp(uid);
  if (!app.data) return null;
  return (
    <div
      className="mb-4 flex items-start gap-2 rounded-md border bg-muted/40 px-3 py-2 text-sm"
      data-testid="connecting-app"
    >
      <Link2 className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
      <p>
        Sign in to connect <span className="font-medium">{app.data.name}</span> to Engram. It will
        send you back to <span className="font-medium break-all">{app.data.redirectHost}</span>.
      </p>
    </div>
  );
}
