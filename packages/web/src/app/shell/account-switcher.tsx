import { ROLE_LABELS } from '@engram/shared';
import { Building2, Check, ChevronsUpDown } from 'lucide-react';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { useAccount } from '@/lib/account';
import { cn } from '@/lib/cn';

/**
 * The account the app acts in, in the header (issue 40), shown only to a
 * person who belongs to more than one: its name and the person's role there,
 * and their accounts to switch to. Switching shows the same screen in the
 * other account's default space, with nothing of the previous account left.
 */
export function AccountSwitcher() {
  const { accounts, current, switchTo } = useAccount();
  if (accounts.length < 2 || current === null) return null;
  const role = ROLE_LABELS[current.role];

  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        aria-label={`Account: ${current.name} (${role})`}
        title={`${current.name} · ${role}`}
        className="inline-flex h-9 min-w-0 shrink-0 cursor-pointer items-center gap-2 rounded-lg border border-border bg-card px-2.5 text-left outline-none hover:bg-muted focus-visible:ring-2 focus-visible:ring-ring data-[state=open]:bg-muted xl:max-w-48"
      >
        <Building2 className="size-4 shrink-0 text-muted-foreground" aria-hidden />
        {/* Below xl the icon alone: the navigation and the space switcher need the room. */}
        <span className="hidden min-w-0 flex-col xl:flex">
          <span className="truncate text-sm leading-4 font-medium">{current.name}</span>
          <span className="truncate text-[11px] leading-3.5 text-muted-foreground">{role}</span>
        </span>
        <ChevronsUpDown
          className="hidden size-4 shrink-0 text-muted-foreground xl:block"
          aria-hidden
        />
      </DropdownMenuTrigger>
      <DropdownMenuContent className="w-72 max-w-[calc(100vw-2rem)]">
        <DropdownMenuLabel className="text-xs font-medium text-muted-foreground">
          Switch account
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        {accounts.map((account) => {
          const selected = account.id === current.id;
          return (
            <DropdownMenuItem
              key={account.id}
              aria-current={selected ? 'true' : undefined}
              className={cn(selected && 'font-medium')}
              onSelect={() => {
                if (!selected) switchTo(account.id);
              }}
            >
              <Building2 aria-hidden />
              <span className="min-w-0 flex-1 truncate">{account.name}</span>
              <span className="shrink-0 text-xs font-normal text-muted-foreground">
                {ROLE_LABELS[account.role]}
              </span>
              <Check className={cn('!text-primary', !selected && 'invisible')} aria-hidden />
            </DropdownMenuItem>
          );
        })}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
