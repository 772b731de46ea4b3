import {
  RECALL_LIMIT_DEFAULT,
  RECALL_LIMIT_MAX,
  RECALL_QUERY_MAX,
  typeLabel,
  type TypeSummary,
} from '@engram/shared';
import { useInfiniteQuery } from '@tanstack/react-query';
import { CalendarRange } from 'lucide-react';
import { useCallback, useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { Page } from '@/components/page';
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
import {
  choiceOfRange,
  isoDay,
  questionRangeNote,
  rangeOfChoice,
  type TimeChoice,
  type TimeRange,
} from '../time-filter';
import { ResultCard } from './result-card';
import { AskState, EmptyMemoryState, NoResultsState, ResultSkeletons } from './search-states';
import { CustomRangeFields, TimeFilterSelect } from './time-filter-field';

const typeFilterOptions = (types: TypeSummary[]) =>
  types.map((summary) => ({ type: summary.type, label: typeWithCount(summary) }));

interface AddressChange {
  query?: string;
  type?: string | null;
  range?: TimeRange;
}

const rangeKey = (range: TimeRange) => `${range.since ?? ''}|${range.until ?? ''}`;

/**
 * Search (/search): one question in plain words, answered by recall with the
 * observations that answer it, best first, as the person types. The question,
 * the type filter and the time range live in the address (?q=&type=&since=&until=),
 * so a reload, a shared link or Back from an entity returns to the same answers;
 * each change of the time range is a step Back undoes. From the query box the arrow
 * keys move through the answers, Enter opens the active one's entity and
 * Escape clears the question.
 */
export function SearchPage() {
  const [params, setParams] = useSearchParams();
  const asked = (params.get('q') ?? '').trim();
  const type = params.get('type') || null;
  const since = params.get('since') || null;
  const until = params.get('until') || null;
  const range = useMemo(() => ({ since, until }), [since, until]);
  // 'Custom range' chosen for the range now in the address (it may still read as a preset).
  const [customFor, setCustomFor] = useState<string | null>(null);
  const today = new Date();
  const timeChoice: TimeChoice =
    customFor === rangeKey(range) ? 'custom' : choiceOfRange(range, today);
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
  const askKey = `${type ?? ''}\n${rangeKey(range)}\n${asked}`;
  const limit = widened === askKey ? RECALL_LIMIT_MAX : RECALL_LIMIT_DEFAULT;
  // By observation id, not position: a new answer never leaves a stale result active.
  const [activeId, setActiveId] = useState<string | null>(null);
  const navigate = useNavigate();
  const listId = useId();
  const hintId = useId();

  const answer = useRecall({ query: asked, type, limit, since, until });
  const entityTypePages = useEntityTypePages();
  // No entity type at all: the space holds nothing (the type picker reads the same page).
  const memoryEmpty = useInfiniteQuery(entityTypePages('')).data?.pages[0]?.types.length === 0;

  const writeAddress = useCallback(
    (change: AddressChange, push = false) =>
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
          if (change.range !== undefined) {
            for (const end of ['since', 'until'] as const) {
              const bound = change.range[end];
              if (bound) next.set(end, bound);
              else next.delete(end);
            }
          }
          return next;
        },
        // One history entry for the screen, not one per pause in typing; a new time range is a step.
        { replace: !push },
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

  function chooseTime(choice: TimeChoice) {
    if (choice === 'custom') {
      // A preset becomes its days, up to today; from any time, the days are yet to be given.
      const days =
        range.since && !range.until ? { since: range.since, until: isoDay(new Date()) } : range;
      setCustomFor(rangeKey(days));
      if (rangeKey(days) !== rangeKey(range)) writeAddress({ query: typed, range: days }, true);
      return;
    }
    setCustomFor(null);
    writeAddress({ query: typed, range: rangeOfChoice(choice, new Date(), range) }, true);
  }

  function changeCustomRange(days: TimeRange) {
    if (rangeKey(days) === rangeKey(range)) return;
    setCustomFor(rangeKey(days));
    // The first days given are a step Back undoes; changing them again is not.
    writeAddress({ query: typed, range: days }, !range.since && !range.until);
  }

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
  // When the question's own words ("last week", "in March") set the range, say so, quietly.
  const rangeNote = data !== undefined && typed !== '' ? questionRangeNote(data.timeRange) : null;
  const countText =
    data === undefined || typed === ''
      ? ''
      : results.length
        ? resultCountLabel(results.length)
        : 'No results';

  return (
    <Page
      title="Search"
      description="Ask a question in plain words; get back the observations that answer it"
    >
      <Card className="p-3 sm:p-4">
        <form
          role="search"
          aria-label="Search memory"
          onSubmit={(event) => event.preventDefault()}
          className="grid grid-cols-2 gap-3 lg:grid-cols-[minmax(0,1fr)_14rem_10rem]"
        >
          <div className="col-span-2 min-w-0 lg:col-span-1">
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
          </div>
          <TypeFilter
            label="Entity type"
            searchLabel="Search entity types"
            pages={entityTypePages}
            type={type}
            display={type ? typeLabel(type) : null}
            options={typeFilterOptions}
            onChange={(chosen) => writeAddress({ query: typed, type: chosen })}
          />
          <TimeFilterSelect choice={timeChoice} onChoose={chooseTime} />
          {timeChoice === 'custom' ? (
            <CustomRangeFields
              range={range}
              onRange={changeCustomRange}
              className="col-span-2 lg:col-span-3"
            />
          ) : null}
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
        {rangeNote ? (
          <p className="-mt-2 flex items-start gap-1.5 text-xs text-muted-foreground">
            <CalendarRange className="mt-px size-3.5 shrink-0" aria-hidden />
            {rangeNote}
          </p>
        ) : null}

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
            {memoryEmpty && !data.abstained ? (
              <EmptyMemoryState />
            ) : (
              <NoResultsState
                filtered={type !== null}
                onClearType={() => writeAddress({ query: typed, type: null })}
                timeFiltered={since !== null || until !== null}
                onClearTime={() => chooseTime('any')}
                abstained={data.abstained === true}
              />
            )}
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
    </Page>
  );
}

function Key({ children }: { children: string }) {
  return (
    <kbd className="rounded border border-border bg-card px-1 py-px font-sans text-[11px] font-medium text-foreground">
      {children}
    </kbd>
  );
}
