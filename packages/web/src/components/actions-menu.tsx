import { MoreHorizontal } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';

/** A row's or card's actions: a ghost icon button (named for what it acts on) opening a menu of them. */
export function ActionsMenu({
  label,
  icon = <MoreHorizontal aria-hidden />,
  triggerClassName = 'size-8 text-muted-foreground',
  children,
}: {
  /** The button's accessible name, e.g. 'Actions for Alice'. */
  label: string;
  icon?: ReactNode;
  triggerClassName?: string;
  /** The menu's items. */
  children: ReactNode;
}) {
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" className={triggerClassName} aria-label={label}>
          {icon}
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="min-w-44">{children}</DropdownMenuContent>
    </DropdownMenu>
  );
}
