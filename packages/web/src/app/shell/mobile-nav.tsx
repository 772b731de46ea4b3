import { Menu } from 'lucide-react';
import { useState } from 'react';
import { NavLink } from 'react-router';
import { BrandLogo } from '@/components/brand-logo';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogDescription,
  DialogTitle,
  DialogTrigger,
  SheetContent,
} from '@/components/ui/dialog';
import { cn } from '@/lib/cn';
import { useSpace } from '@/lib/space';
import { HeaderSearch } from './header-search';
import { NAV_ITEMS } from './nav-items';

/** The navigation behind a menu button on narrow screens (375px and up). */
export function MobileNav() {
  const [open, setOpen] = useState(false);
  const { linkTo } = useSpace();
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="ghost" size="icon" className="md:hidden" aria-label="Open navigation menu">
          <Menu aria-hidden />
        </Button>
      </DialogTrigger>
      <SheetContent>
        <DialogTitle className="sr-only">Navigation</DialogTitle>
        <DialogDescription className="sr-only">Go to a section of Engram</DialogDescription>
        <BrandLogo to={linkTo('/dashboard')} />
        <HeaderSearch className="mt-4" onAsked={() => setOpen(false)} />
        <nav aria-label="Mobile" className="mt-4 grid gap-1">
          {NAV_ITEMS.map(({ to, label, icon: Icon }) => (
            <NavLink
              key={to}
              to={linkTo(to)}
              onClick={() => setOpen(false)}
              className={({ isActive }) =>
                cn(
                  'flex h-10 items-center gap-3 rounded-md px-3 text-sm font-medium outline-none focus-visible:ring-2 focus-visible:ring-ring',
                  isActive ? 'bg-muted text-foreground' : 'text-muted-foreground hover:bg-muted',
                )
              }
            >
              <Icon className="size-4" aria-hidden />
              {label}
            </NavLink>
          ))}
        </nav>
      </SheetContent>
    </Dialog>
  );
}
