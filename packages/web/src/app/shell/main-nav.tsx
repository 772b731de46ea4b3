import { NavLink } from 'react-router';
import { cn } from '@/lib/cn';
import { useSpace } from '@/lib/space';
import { NAV_ITEMS } from './nav-items';

/** Desktop navigation; below `md` the mobile menu takes over. */
export function MainNav() {
  const { linkTo } = useSpace();
  return (
    <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
      {NAV_ITEMS.map(({ to, label, icon: Icon }) => (
        <NavLink
          key={to}
          to={linkTo(to)}
          className={({ isActive }) =>
            cn(
              'inline-flex h-8 items-center gap-2 rounded-md px-3 text-sm font-medium outline-none transition-colors xl:whitespace-nowrap focus-visible:ring-2 focus-visible:ring-ring',
              isActive
                ? 'bg-muted text-foreground'
                : 'text-muted-foreground hover:bg-muted hover:text-foreground',
            )
          }
        >
          <Icon className="size-4" aria-hidden />
          {label}
        </NavLink>
      ))}
    </nav>
  );
}
