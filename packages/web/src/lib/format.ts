const wholeDollars = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 0,
});
const dollarsAndCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** 1000 → '$10', 833 → '$8.33': amounts are cents (docs/product.md, Numbers), shown as USD. */
export function formatCents(cents: number): string {
  const rounded = Math.round(cents);
  return rounded % 100 === 0
    ? wholeDollars.format(rounded / 100)
    : dollarsAndCents.format(rounded / 100);
}

const date = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
const dateTime = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});
const count = new Intl.NumberFormat('en-US');

/** '2027-01-05T10:00:00Z' → 'Jan 5, 2027' (local time); an unreadable date is shown as given. */
export function formatDate(iso: string): string {
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? iso : date.format(value);
}

/** '2027-01-05T15:04:00Z' → 'Jan 5, 2027, 3:04 PM' (local time). */
export function formatDateTime(iso: string): string {
  const value = new Date(iso);
  return Number.isNaN(value.getTime()) ? iso : dateTime.format(value);
}

/** 1234 → '1,234'. */
export function formatCount(value: number): string {
  return count.format(value);
}

/** 1 → '1 delete', 2 → '2 deletes', 1234 → '1,234 queries' (with `many` for irregular words). */
export function pluralize(value: number, one: string, many = `${one}s`): string {
  return `${count.format(value)} ${value === 1 ? one : many}`;
}

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** 'just now', '5 minutes ago', 'yesterday', '3 weeks ago', then the date itself after a month. */
export function timeAgo(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const ago = Math.max(0, now.getTime() - at.getTime());
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return relative.format(-Math.floor(ago / MINUTE), 'minute');
  if (ago < DAY) return relative.format(-Math.floor(ago / HOUR), 'hour');
  if (ago < 7 * DAY) return relative.format(-Math.floor(ago / DAY), 'day');
  if (ago < 30 * DAY) return relative.format(-Math.floor(ago / (7 * DAY)), 'week');
  return formatDate(iso);
}
