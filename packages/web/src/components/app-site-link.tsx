import type { ReactNode } from 'react';
import { webAddress } from '@/lib/web-address';

/**
 * An app's site, the address it gave, opened in a new tab: only a web
 * address is linked (`webAddress`); `fallback` stands in for anything else.
 */
export function AppSiteLink({
  uri,
  className,
  fallback = null,
}: {
  uri: string | null;
  className: string;
  fallback?: ReactNode;
}) {
  const site = webAddress(uri);
  if (!site) return fallback;
  return (
    <a href={site.href} target="_blank" rel="noopener noreferrer" className={className}>
      {site.host}
    </a>
  );
}
