import {
  RECALL_LIMIT_DEFAULT,
  RECALL_LIMIT_MAX,
  RECALL_QUERY_MAX,
  typeLabel,
  type TypeSummary,
} from '@engram/shared';
import { useCallback, useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { SearchField } from '@/components/search-field';
import { TypeFilter, typeWithCount } from '@/components/type-filter';
import { LoadErrorAlert } from '@/components/load-error-alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { cn } from '@/lib/cn';
import { useEntityTypePages } from '@/lib/api/entities';
import { askedElsewhereMark } from '@/lib/search-address';
import { useRecall } from '../api/recall';
import { queryWords } from '../highlight';
import { resultCountLabel, SEARCH_DEBOUNCE_MS, stepActive } from '../search-rules';
import { ResultCard } from './result-card';
import { AskState, NoResultsState, ResultSkeletons } from './search-states';

const typeFilterOptions = (types: TypeSummary[]) =>
  types.map((summary) => ({ type: summary.type, label: typeWithCount(summary) }));

interface AddressChange {
  query?: string;
  type?: string | null;
}

/**
 * Search (/search): one question in plain words, answered by recall with the
 * observations that answer it, best first, as the person types. The question
 * and the type filter live in the address (?q=&type=), so a reload or Back
 * from an entity returns to the same answers. From the query box the arrow
 * keys move through the answers, Enter opens the active one's entity and
 * Escape clears the question.
 */
export function SearchPage() {
  const [params, setParams] = useSearchParams();
  const asked = (params.get('q') ?? '').trim();
  const type = params.get('type') || null;
  const [draft, setDraft] = useState(() => params.get('q') ?? '');
  // A question asked from the header while this screen is open replaces the one in the box.
  const elsewhere = askedElsewhereMark(useLocation().state);
  const [seenElsewhere, setSeenElsewhere] = useState(elsewhere);
  if (elsewhere !== undefined && elsewhere !== seenElsewhere) {
    setSeenElsewhere(elsewhere);
    setDraft(params.get('q') ?? '');
  }
  // 'Show more' holds for the question it was asked for; a new question starts at the default.
  const [widened, setWidened] = useState<string | null>(null);
  const askKey = `${type ?? ''}\n${asked}`;
  const limit = widened === askKey ? RECALL_LIMIT_MAX : RECALL_LIMIT_DEFAULT;
  // By observation id, not position: a new answer never leaves a stale result active.
  const [activeId, setActiveId] = useState<string | null>(null);
  const navigate = useNavigate();
  const listId = useId();
  const hintId = useId();

  const answer = useRecall({ query: asked, type, limit });
  const entityTypePages = useEntityTypePages();

  const writeAddress = useCallback(
    (change: AddressChange) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (change.query !== undefined) {
            if (change.query) next.set('q', change.query);
            else next.delete('q');
          }
          if (change.type !== undefined) {
            if (change.type) next.set('type', change.type);
            else next.delete('type');
          }
          return next;
        },
        // One history entry for the screen, not one per pause in typing.
        { replace: true },
      ),
    [setParams],
  );

  // The typed question is asked once typing pauses; clearing it is at once.
  const typed = draft.trim();
  useEffect(() => {
    if (typed === asked) return;
    const timer = setTimeout(() => writeAddress({ query: typed }), typed ? SEARCH_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [typed, asked, writeAddress]);

  function ask(question: string) {
    setDraft(question);
    writeAddress({ query: question.trim() });
  }

  const data = asked ? answer.data : undefined;
  const results = useMemo(() => data?.results ?? [], [data]);
  const words = useMemo(() => queryWords(data?.asked.query ?? ''), [data]);
  const activeIndex = results.findIndex((result) => result.observationId === activeId);
  const active = activeIndex >= 0 ? results[activeIndex] : undefined;
  // By position: ids are the server's and need not be valid in an id reference.
  const resultId = (index: number) => `${listId}-result-${index}`;
  // Answers on screen to an earlier question (or while typing on) are dimmed.
  const stale = answer.isPlaceholderData || typed !== asked;
  const busy = typed !== asked || (asked !== '' && answer.isFetching);

  function moveActive(step: 1 | -1) {
    const next = stepActive(activeIndex, step, results.length);
    const chosen = next >= 0 ? results[next] : undefined;
    setActiveId(chosen?.observationId ?? null);
    if (chosen) document.getElementById(resultId(next))?.scrollIntoView?.({ block: 'nearest' });
  }

  function keyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (results.length === 0) return;
      event.preventDefault();
      moveActive(event.key === 'ArrowDown' ? 1 : -1);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (active) void navigate(`/entities/${encodeURIComponent(active.entityId)}`);
      // No result chosen: ask now, without waiting for the pause.
      else if (typed !== asked) writeAddress({ query: typed });
    } else if (event.key === 'Escape') {
      if (draft === '' && asked === '') return;
      event.preventDefault();
      setActiveId(null);
      ask('');
    }
  }

  const showResults = data !== undefined && results.length > 0;
  const countText =
    data === undefined || typed === ''
      ? ''
      : results.length
        ? resultCountLabel(results.length)
        : 'No results';

  return (
    <div className="grid gap-6">
      <title>Search · Engram</title>
      <PageHeader
        title="Search"
        description="Ask a question in plain words; get back the observations that answer it"
      />

      <Card className="p-3 sm:p-4">
        <form
          role="search"
          aria-label="Search memory"
          onSubmit={(event) => event.preventDefault()}
          className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_14rem]"
        >
          <SearchField
            busy={busy}
            aria-label="Ask a question"
            aria-describedby={hintId}
            aria-controls={showResults ? listId : undefined}
            aria-activedescendant={active ? resultId(activeIndex) : undefined}
            // The one thing on this screen: ready for typing on arrival.
            autoFocus
            autoComplete="off"
            enterKeyHint="search"
            maxLength={RECALL_QUERY_MAX}
            placeholder="Ask a question…"
            className="text-base sm:text-sm"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={keyDown}
          >
            <span id={hintId} className="sr-only">
              Answers appear as you type. Arrow keys move through them, Enter opens the chosen
              answer&apos;s entity, Escape clears the question.
            </span>
          </SearchField>
          <TypeFilter
            label="Entity type"
            searchLabel="Search entity types"
            pages={entityTypePages}
            type={type}
            display={type ? typeLabel(type) : null}
            options={typeFilterOptions}
            onChange={(chosen) => writeAddress({ query: typed, type: chosen })}
          />
        </form>
      </Card>

      <section aria-label="Answers" className="grid gap-3">
        <p
          aria-live="polite"
          className={cn(
            'text-sm text-muted-foreground',
            (!showResults || typed === '') && 'sr-only',
          )}
        >
          <span className="font-medium text-foreground">{countText}</span>
          {showResults ? ', best first' : null}
        </p>

        {typed === '' ? (
          <AskState onAsk={ask} />
        ) : answer.isError && !data ? (
          <LoadErrorAlert onRetry={() => void answer.refetch()}>
            Could not search your memory
            {answer.error.message ? `: ${answer.error.message}` : null}
          </LoadErrorAlert>
        ) : data === undefined ? (
          <ResultSkeletons />
        ) : results.length === 0 ? (
          <div className={cn('transition-opacity', stale && 'opacity-60')}>
            <NoResultsState
              filtered={type !== null}
              onClearType={() => writeAddress({ query: typed, type: null })}
            />
          </div>
        ) : (
          <>
            <ol
              id={listId}
              aria-label="Results"
              aria-busy={stale || undefined}
              className={cn('grid gap-2 transition-opacity', stale && 'opacity-60')}
            >
              {results.map((result, index) => (
                <li key={result.observationId}>
                  <ResultCard
                    id={resultId(index)}
                    result={result}
                    words={words}
                    active={result.observationId === activeId}
                  />
                </li>
              ))}
            </ol>
            <div className="flex flex-wrap items-center justify-between gap-3">
              <p className="hidden text-xs text-muted-foreground sm:block" aria-hidden>
                <Key>↑</Key> <Key>↓</Key> to move · <Key>Enter</Key> to open · <Key>Esc</Key> to
                clear
              </p>
              {results.length >= limit && limit < RECALL_LIMIT_MAX ? (
                <Button
                  variant="outline"
                  size="sm"
                  className="ml-auto"
                  disabled={answer.isFetching}
                  onClick={() => setWidened(askKey)}
                >
                  Show more results
                </Button>
              ) : null}
            </div>
          </>
        )}
      </section>
    </div>
  );
}

function Key({ children }: { children: string }) {
  return (
    <kbd className="rounded border border-border bg-card px-1 py-px font-sans text-[11px] font-medium text-foreground">
      {children}
    </kbd>
  );
}
