import { RotateCw } from 'lucide-react';
import { useRouteError } from 'react-router';
import { Button } from '@/components/ui/button';

/** Last line of defence: a render error shows a way out instead of a blank page. */
export function RouteError() {
  const error = useRouteError();
  console.error(error);
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center gap-4 bg-surface p-6 text-center">
      <div>
        <h1 className="text-lg font-semibold">Something went wrong</h1>
        <p className="mt-1 text-sm text-muted-foreground">
          The page failed to load. Reloading usually fixes it.
        </p>
      </div>
      <div className="flex gap-2">
        <Button onClick={() => window.location.reload()}>
          <RotateCw aria-hidden />
          Reload
        </Button>
        <Button variant="outline" onClick={() => window.location.assign('/')}>
          Go home
        </Button>
      </div>
    </div>
  );
}
