import { AppWindow } from 'lucide-react';
import { useState } from 'react';
import { webAddress } from '@/lib/web-address';
import { cn } from '@/lib/cn';

const SIZES = {
  md: { box: 'size-10', icon: 'size-4', pixels: 40 },
  lg: { box: 'size-12', icon: 'size-5', pixels: 48 },
};

/**
 * An OAuth app's logo at a fixed size, or a plain icon when it has none or it
 * fails to load. No referrer: the app's server does not learn where it is shown.
 */
export function AppLogo({ logoUri, size = 'md' }: { logoUri: string | null; size?: 'md' | 'lg' }) {
  const [failed, setFailed] = useState(false);
  const src = webAddress(logoUri);
  const { box, icon, pixels } = SIZES[size];
  if (!src || failed) {
    return (
      <div
        className={cn(
          'flex shrink-0 items-center justify-center rounded-lg border border-border bg-muted text-muted-foreground',
          box,
        )}
      >
        <AppWindow className={icon} aria-hidden />
      </div>
    );
  }
  return (
    <img
      src={src.href}
      alt=""
      width={pixels}
      height={pixels}
      referrerPolicy="no-referrer"
      onError={() => setFailed(true)}
      className={cn('shrink-0 rounded-lg border border-border bg-card object-contain', box)}
    />
  );
}
