import { DEFAULT_SPACE_SLUG, type Space } from '@engram/shared';
import { Layers, Pencil, Plus, Trash2 } from 'lucide-react';
import { useId, useState } from 'react';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { LoadMoreButton } from '@/components/load-more';
import { NewSpaceDialog } from '@/components/new-space-dialog';
import { SearchField } from '@/components/search-field';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { LoadingBlock } from '@/components/ui/spinner';
import { useCan } from '@/lib/account';
import { useSpaceSearch } from '@/lib/api/spaces';
import { formatDate } from '@/lib/format';
import { useSpace } from '@/lib/space';
import { spaceCountsLabel } from '../space-display';
import { DeleteSpaceDialog } from './delete-space-dialog';
import { RenameSpaceDialog } from './rename-space-dialog';

/**
 * The account's memory spaces (Settings → Spaces): each with what it holds,
 * renamed or deleted from its row (never `default`), new ones made here or
 * from the header's switcher. Searched on the server and read a page at a
 * time: an account may hold thousands. Members create and rename; only
 * admins and owners delete; a viewer only reads (lib/account/role-rules.ts).
 */
export function SpacesCard() {
  const titleId = useId();
  const shown = useSpace();
  const [search, setSearch] = useState('');
  const found = useSpaceSearch(search);
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Space | null>(null);
  const [deleting, setDeleting] = useState<Space | null>(null);
  const { pages, spaces } = found;
  const canCreate = useCan('createSpace');
  const canRename = useCan('renameSpace');
  const canDelete = useCan('deleteSpace');

  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <CardTitle id={titleId}>Spaces</CardTitle>
          <CardDescription>
            Separate graphs in one account. Agents pick one with the X-Engram-Space header; keys can
            be limited to some of them.
          </CardDescription>
        </div>
        {canCreate ? (
          <Button size="sm" onClick={() => setCreating(true)}>
            <Plus aria-hidden />
            New space
          </Button>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-3">
        <SearchField
          aria-label="Filter spaces"
          placeholder="Filter spaces..."
          autoComplete="off"
          maxLength={100}
          busy={found.stale || (pages.isFetching && !pages.isFetchingNextPage && !pages.isPending)}
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        {pages.isPending ? (
          <LoadingBlock label="Loading spaces…" />
        ) : pages.isError && !pages.data ? (
          <LoadErrorAlert onRetry={() => void pages.refetch()}>
            Failed to load spaces
          </LoadErrorAlert>
        ) : spaces.length === 0 ? (
          <p className="rounded-lg border border-dashed border-border px-4 py-6 text-center text-sm text-muted-foreground">
            No spaces start with this text
          </p>
        ) : (
          <ul
            aria-label="Spaces"
            className="divide-y divide-border rounded-lg border border-border"
          >
            {spaces.map((space) => (
              <li
                key={space.id}
                className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2.5"
              >
                <Layers
                  className="hidden size-4 shrink-0 text-muted-foreground sm:block"
                  aria-hidden
                />
                <div className="min-w-0 flex-1">
                  <p className="flex min-w-0 items-center gap-2">
                    <span className="truncate text-sm font-medium">{space.name}</span>
                    {space.slug === shown.slug && !shown.allSpaces ? (
                      <Badge variant="accent">Shown</Badge>
                    ) : null}
                  </p>
                  <p className="text-xs text-muted-foreground">
                    <span className="font-mono">{space.slug}</span> · {spaceCountsLabel(space)} ·
                    created {formatDate(space.createdAt)}
                  </p>
                </div>
                <div className="flex shrink-0 gap-1">
                  {canRename ? (
                    <Button
                      variant="ghost"
                      size="icon"
                      aria-label={`Rename ${space.name}`}
                      title="Rename"
                      onClick={() => setRenaming(space)}
                    >
                      <Pencil aria-hidden />
                    </Button>
                  ) : null}
                  {space.slug === DEFAULT_SPACE_SLUG || !canDelete ? null : (
                    <Button
                      variant="ghost"
                      size="icon"
                      aria-label={`Delete ${space.name}`}
                      title="Delete"
                      className="text-destructive"
                      onClick={() => setDeleting(space)}
                    >
                      <Trash2 aria-hidden />
                    </Button>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
        {pages.hasNextPage ? (
          <div className="flex justify-center">
            <LoadMoreButton pages={pages} size="sm">
              Load more spaces
            </LoadMoreButton>
          </div>
        ) : null}
      </CardContent>
      <NewSpaceDialog open={creating} onOpenChange={setCreating} />
      <RenameSpaceDialog space={renaming} onClose={() => setRenaming(null)} />
      <DeleteSpaceDialog
        space={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={(slug) => {
          // The space on screen is gone: show the default one.
          if (slug === shown.slug) shown.choose(DEFAULT_SPACE_SLUG);
        }}
      />
    </Card>
  );
}
