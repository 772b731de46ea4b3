import { Link, Outlet } from 'react-router';
import { BrandLogo } from '@/components/brand-logo';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { useSession } from '@/lib/session';

const headerLink =
  'rounded-md px-3 py-1.5 text-sm font-medium text-muted-foreground outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring';

/** Account button: 'Sign In', or 'Dashboard' when signed in (docs/product.md, Public pages). */
function AccountButton() {
  const { status } = useSession();
  if (status === 'authenticated') {
    return (
      <Button asChild size="sm">
        <Link to="/dashboard">Dashboard</Link>
      </Button>
    );
  }
  return (
    // Hidden, not absent, while the session is checked: the header keeps its width.
    <Button
      asChild
      size="sm"
      variant="outline"
      className={cn(status === 'checking' && 'invisible')}
    >
      <Link to="/login">Sign In</Link>
    </Button>
  );
}

function SiteHeader() {
  return (
    <header className="sticky top-0 z-40 border-b border-border bg-background/90 backdrop-blur supports-[backdrop-filter]:bg-background/75">
      <div className="mx-auto flex h-14 max-w-6xl items-center gap-2 px-4 sm:px-6">
        <BrandLogo className="mr-2" />
        <nav aria-label="Site" className="flex items-center">
          <a href="/#features" className={cn(headerLink, 'hidden sm:inline-flex')}>
            Features
          </a>
          <Link to="/pricing" className={headerLink}>
            Pricing
          </Link>
          <a href="/docs" className={cn(headerLink, 'hidden sm:inline-flex')}>
            Docs
          </a>
        </nav>
        <div className="ml-auto">
          <AccountButton />
        </div>
      </div>
    </header>
  );
}

const FOOTER_COLUMNS = [
  {
    title: 'Product',
    links: [
      { label: 'Features', href: '/#features', internal: false },
      { label: 'Pricing', href: '/pricing', internal: true },
    ],
  },
  {
    title: 'Developers',
    links: [{ label: 'API Reference', href: '/docs', internal: false }],
  },
  {
    title: 'Account',
    links: [
      { label: 'Sign In', href: '/login', internal: true },
      { label: 'Create Account', href: '/signup', internal: true },
    ],
  },
];

function SiteFooter() {
  return (
    <footer className="border-t border-border bg-surface">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 sm:px-6 md:grid-cols-[2fr_repeat(3,1fr)]">
        <div className="grid content-start gap-3">
          <BrandLogo />
          <p className="max-w-xs text-sm text-muted-foreground">
            Persistent knowledge-graph memory for AI agents, built on the Model Context Protocol.
          </p>
        </div>
        {FOOTER_COLUMNS.map((column) => (
          <div key={column.title}>
            <h2 className="text-sm font-semibold">{column.title}</h2>
            <ul className="mt-3 grid gap-2">
              {column.links.map((link) => (
                <li key={link.label}>
                  {link.internal ? (
                    <Link
                      to={link.href}
                      className="text-sm text-muted-foreground hover:text-foreground"
                    >
                      {link.label}
                    </Link>
                  ) : (
                    <a
                      href={link.href}
                      className="text-sm text-muted-foreground hover:text-foreground"
                    >
                      {link.label}
                    </a>
                  )}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
      <div className="border-t border-border">
        <p className="mx-auto max-w-6xl px-4 py-4 text-xs text-muted-foreground sm:px-6">
          © {new Date().getFullYear()} Engram. All rights reserved.
        </p>
      </div>
    </footer>
  );
}

/** The frame of the public pages (landing, pricing). */
export function PublicLayout() {
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader />
      <main className="flex-1">
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}
