import { invoiceList, type Invoice } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { billingKeys } from '@/lib/api/keys';

/** GET /api/billing/invoices → invoices (docs/product.md, Calls), newest first. */
export async function listInvoices(): Promise<Invoice[]> {
  return (await apiRequest('/api/billing/invoices', { schema: invoiceList })).invoices;
}

export function invoicesQueryOptions() {
  return queryOptions({ queryKey: billingKeys.invoices, queryFn: listInvoices });
}

export function useInvoices() {
  return useQuery(invoicesQueryOptions());
}
