import { NavLink } from 'react-router';
import { cn } from '@/lib/cn';
import { useSpace } from '@/lib/space';

/** Settings' sections, each its own address. */
export const SETTINGS_TABS = [
  { to: '/settings', label: 'Account' },
  { to: '/settings/members', label: 'Members' },
  { to: '/settings/spaces', label: 'Spaces' },
  { to: '/settings/webhooks', label: 'Webhooks' },
  { to: '/settings/import-export', label: 'Import/Export' },
] as const;

/** The tab bar under Settings' title: links, so each section can be linked to and reloaded. */
export function SettingsTabs() {
  const { linkTo } = useSpace();
  return (
    <nav aria-label="Settings sections" className="-mb-2 overflow-x-auto border-b border-border">
      <ul className="flex gap-1">
        {SETTINGS_TABS.map(({ to, label }) => (
          <li key={to}>
            <NavLink
              to={linkTo(to)}
              end
              className={({ isActive }) =>
                cn(
                  '-mb-px inline-flex h-9 items-center border-b-2 px-3 text-sm font-medium whitespace-nowrap outline-none focus-visible:ring-2 focus-visible:ring-ring',
                  isActive
                    ? 'border-primary text-foreground'
                    : 'border-transparent text-muted-foreground hover:text-foreground',
                )
              }
            >
              {label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
