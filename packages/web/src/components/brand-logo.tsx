import { Link, type To } from 'react-router';
import { cn } from '@/lib/cn';

/** The Engram mark: three linked nodes, i.e. a tiny knowledge graph. */
function BrandMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={cn('size-7', className)} aria-hidden>
      <rect width="32" height="32" rx="8" className="fill-primary" />
      <g stroke="white" strokeWidth="2" strokeLinecap="round" opacity="0.7">
        <path d="M10 11l12 4M10 11l4 11M22 15l-8 7" />
      </g>
      <g fill="white">
        <circle cx="10" cy="11" r="3" />
        <circle cx="22" cy="15" r="3" />
        <circle cx="14" cy="22" r="3" />
      </g>
    </svg>
  );
}

export function BrandLogo({ to = '/', className }: { to?: To; className?: string }) {
  return (
    <Link
      to={to}
      className={cn(
        'inline-flex items-center gap-2 rounded-md text-base font-semibold tracking-tight outline-none focus-visible:ring-2 focus-visible:ring-ring',
        className,
      )}
    >
      <BrandMark />
      <span>Engram</span>
    </Link>
  );
}
