import { ChevronDown, CreditCard, KeyRound, LogOut, Settings } from 'lucide-react';
import { useNavigate } from 'react-router';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { useSession } from '@/lib/session';
import { useSpace } from '@/lib/space';

function initialsOf(firstName: string | undefined, lastName: string | undefined, email: string) {
  const fromName = `${firstName?.charAt(0) ?? ''}${lastName?.charAt(0) ?? ''}`;
  return (fromName || email.charAt(0) || 'U').toUpperCase();
}

/** The account menu (docs/product.md, The signed-in app): the user's email, or 'User', then API Keys, Billing, Settings, Logout. */
export function UserMenu() {
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const { linkTo } = useSpace();
  const displayName = user?.email || 'User';

  async function handleLogout() {
    await signOut();
    await navigate('/login', { replace: true });
  }

  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        className="inline-flex h-9 max-w-64 min-w-0 cursor-pointer items-center gap-2 rounded-lg px-1.5 text-sm outline-none hover:bg-muted focus-visible:ring-2 focus-visible:ring-ring data-[state=open]:bg-muted sm:pr-2"
        aria-label={`Account menu for ${displayName}`}
      >
        <span
          className="flex size-7 shrink-0 items-center justify-center rounded-full bg-primary-soft text-xs font-semibold text-primary-soft-foreground"
          aria-hidden
        >
          {initialsOf(user?.firstName, user?.lastName, displayName)}
        </span>
        <span className="hidden truncate font-medium sm:inline">{displayName}</span>
        <ChevronDown
          className="hidden size-4 shrink-0 text-muted-foreground sm:block"
          aria-hidden
        />
      </DropdownMenuTrigger>
      <DropdownMenuContent>
        <DropdownMenuLabel>
          <span className="block text-xs text-muted-foreground">Signed in as</span>
          <span className="block truncate font-medium">{displayName}</span>
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => void navigate(linkTo('/api-keys'))}>
          <KeyRound aria-hidden />
          API Keys
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => void navigate(linkTo('/billing'))}>
          <CreditCard aria-hidden />
          Billing
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => void navigate(linkTo('/settings'))}>
          <Settings aria-hidden />
          Settings
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => void handleLogout()}>
          <LogOut aria-hidden />
          Logout
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
