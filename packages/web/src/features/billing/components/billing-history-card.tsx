import { ExternalLink, FileDown, Receipt } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeadRow,
  TableRow,
} from '@/components/ui/table';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { cn } from '@/lib/cn';
import { useInvoices } from '../api/list-invoices';
import { formatShortDate, formatUsd, statusLabel } from '../billing-rules';
import { ToneBadge } from './tone-badge';

const linkClass =
  'inline-flex items-center gap-1 rounded-md px-1.5 py-1 text-sm font-medium text-primary hover:bg-primary-soft focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none [&_svg]:size-3.5';

/** Billing history: Invoice, Date, Amount, Status (paid green), Actions (new tab). */
export function BillingHistoryCard() {
  const invoices = useInvoices();
  return (
    <Card role="region" aria-label="Billing history">
      <CardHeader>
        <CardTitle>Billing History</CardTitle>
        <CardDescription>Invoices for your subscription</CardDescription>
      </CardHeader>
      <CardContent className={cn(invoices.data?.length ? 'px-0 pb-2' : undefined)}>
        {invoices.isError ? (
          <LoadErrorAlert onRetry={() => void invoices.refetch()}>
            Failed to load billing history
          </LoadErrorAlert>
        ) : invoices.isPending ? (
          <p className="flex items-center gap-2 py-6 text-sm text-muted-foreground" role="status">
            <Spinner />
            Loading billing history...
          </p>
        ) : invoices.data.length === 0 ? (
          <div className="flex flex-col items-center rounded-lg border border-dashed border-border px-4 py-8 text-center">
            <Receipt className="size-5 text-muted-foreground" aria-hidden />
            <p className="mt-2 text-sm font-medium">No billing history available</p>
          </div>
        ) : (
          <Table>
            <TableHeadRow>
              <TableHead className="pl-6">Invoice</TableHead>
              <TableHead>Date</TableHead>
              <TableHead className="text-right">Amount</TableHead>
              <TableHead>Status</TableHead>
              <TableHead className="pr-6 text-right">Actions</TableHead>
            </TableHeadRow>
            <TableBody>
              {invoices.data.map((invoice) => {
                const paid = invoice.status === 'paid';
                const label = invoice.number ?? invoice.id;
                return (
                  <TableRow key={invoice.id}>
                    <TableCell className="pl-6 font-mono text-[13px] whitespace-nowrap">
                      {label}
                    </TableCell>
                    <TableCell className="whitespace-nowrap">
                      {formatShortDate(invoice.created)}
                    </TableCell>
                    <TableCell className="text-right whitespace-nowrap tabular-nums">
                      {formatUsd(invoice.amount)}{' '}
                      <span className="text-xs text-muted-foreground">USD</span>
                    </TableCell>
                    <TableCell>
                      <ToneBadge good={paid}>{statusLabel(invoice.status)}</ToneBadge>
                    </TableCell>
                    <TableCell className="pr-6 text-right whitespace-nowrap">
                      {invoice.hostedInvoiceUrl ? (
                        <a
                          href={invoice.hostedInvoiceUrl}
                          target="_blank"
                          rel="noopener noreferrer"
                          className={linkClass}
                          aria-label={`View invoice ${label}`}
                        >
                          <ExternalLink aria-hidden />
                          View
                        </a>
                      ) : null}
                      {invoice.invoicePdf ? (
                        <a
                          href={invoice.invoicePdf}
                          target="_blank"
                          rel="noopener noreferrer"
                          className={linkClass}
                          aria-label={`Download invoice ${label} as PDF`}
                        >
                          <FileDown aria-hidden />
                          PDF
                        </a>
                      ) : null}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}
