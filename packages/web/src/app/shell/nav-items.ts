import { LayoutDashboard, Network, Share2, Shapes, type LucideIcon } from 'lucide-react';

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

/** The signed-in top navigation (docs/product.md, The signed-in app), in order. */
export const NAV_ITEMS: NavItem[] = [
  { to: '/dashboard', label: 'Dashboard', icon: LayoutDashboard },
  { to: '/entities', label: 'Entities', icon: Shapes },
  { to: '/relations', label: 'Relations', icon: Share2 },
  { to: '/graph', label: 'Graph View', icon: Network },
];
