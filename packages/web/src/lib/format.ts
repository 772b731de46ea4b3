const wholeDollars = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 0,
});
const dollarsAndCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** 1000 → '$10', 833 → '$8.33': amounts are cents (spec §9), shown as USD. */
export function formatCents(cents: number): string {
  const rounded = Math.round(cents);
  return rounded % 100 === 0
    ? wholeDollars.format(rounded / 100)
    : dollarsAndCents.format(rounded / 100);
}
