import { Inbox, MessageCircleQuestion, SearchX, type LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { EmptyState } from '@/components/empty-state';
import { Button } from '@/components/ui/button';
import { EXAMPLE_QUESTIONS } from '../search-rules';

function StateCard({
  icon,
  title,
  children,
}: {
  icon: LucideIcon;
  title: string;
  children: ReactNode;
}) {
  return (
    <EmptyState icon={icon} title={title} className="py-10 sm:py-12">
      {children}
    </EmptyState>
  );
}

/** Before a question: what to ask, with examples that ask themselves when clicked. */
export function AskState({ onAsk }: { onAsk: (question: string) => void }) {
  return (
    <StateCard icon={MessageCircleQuestion} title="Ask your memory a question">
      <p className="mt-1 max-w-md text-sm text-muted-foreground">
        Write it the way you would ask a colleague. Engram finds the observations that answer it,
        best first.
      </p>
      <ul
        aria-label="Example questions"
        className="mt-6 flex max-w-xl flex-wrap justify-center gap-2"
      >
        {EXAMPLE_QUESTIONS.map((question) => (
          <li key={question}>
            <button
              type="button"
              className="cursor-pointer rounded-full border border-border bg-card px-3 py-1.5 text-sm shadow-xs transition-colors outline-none hover:border-ring/50 hover:bg-primary-soft hover:text-primary-soft-foreground focus-visible:ring-2 focus-visible:ring-ring"
              onClick={() => onAsk(question)}
            >
              {question}
            </button>
          </li>
        ))}
      </ul>
      <ul className="mt-6 grid list-disc gap-1 pl-4 text-left text-xs text-muted-foreground marker:text-border">
        <li>Name the person, project or thing you mean.</li>
        <li>Any form of a word will do: start, started, starting.</li>
        <li>Narrow the answers to one entity type with the filter.</li>
      </ul>
    </StateCard>
  );
}

/** A space that holds nothing yet: no question can be answered, and that is not recall's doing. */
export function EmptyMemoryState() {
  return (
    <StateCard icon={Inbox} title="Your memory is empty">
      <p className="mt-1 max-w-md text-sm text-muted-foreground">
        Nothing is stored in this space yet. Add entities, import memory in Settings, or connect an
        agent to remember for you.
      </p>
    </StateCard>
  );
}

/** What an abstained answer says: recall found matches, but none strong enough to answer. */
export const ABSTAINED_TEXT = 'The best matches in memory were too weak to answer it.';

/**
 * A question that nothing stored answers (of the type, in the time range,
 * when chosen). `abstained`: recall had matches but judged them too weak to
 * answer (issue 60), said in words beside the usual hint.
 */
export function NoResultsState({
  filtered,
  onClearType,
  timeFiltered = false,
  onClearTime,
  abstained = false,
}: {
  filtered: boolean;
  onClearType: () => void;
  timeFiltered?: boolean;
  onClearTime?: () => void;
  abstained?: boolean;
}) {
  const hint =
    filtered && timeFiltered
      ? 'Nothing of this type matches in this time range. Widen the filters, or ask with other words.'
      : filtered
        ? 'Nothing of this type matches. Search every type, or ask with other words.'
        : timeFiltered
          ? 'Nothing in this time range matches. Search any time, or ask with other words.'
          : 'Try other words, or name the person or thing you mean.';
  return (
    <StateCard icon={SearchX} title="Nothing in memory answers that">
      {abstained ? (
        <p className="mt-1 max-w-md text-sm font-medium text-foreground">{ABSTAINED_TEXT}</p>
      ) : null}
      <p className="mt-1 max-w-md text-sm text-muted-foreground">{hint}</p>
      {filtered || timeFiltered ? (
        <div className="mt-6 flex flex-wrap justify-center gap-2">
          {filtered ? (
            <Button variant="outline" onClick={onClearType}>
              Search all types
            </Button>
          ) : null}
          {timeFiltered && onClearTime ? (
            <Button variant="outline" onClick={onClearTime}>
              Search any time
            </Button>
          ) : null}
        </div>
      ) : null}
    </StateCard>
  );
}

/** Where the answers will be, while the first of them is on its way. */
export function ResultSkeletons() {
  return (
    <div role="status" className="grid gap-2">
      <span className="sr-only">Searching…</span>
      {[0.92, 0.75, 0.84].map((width, index) => (
        <div
          key={index}
          aria-hidden
          className="grid gap-3 rounded-lg border border-border bg-card p-4 shadow-xs"
        >
          <div className="grid animate-pulse gap-2">
            <div className="h-3.5 rounded bg-muted" style={{ width: `${width * 100}%` }} />
            <div className="h-3.5 rounded bg-muted" style={{ width: `${width * 55}%` }} />
          </div>
          <div className="flex animate-pulse items-center gap-2.5">
            <div className="h-4 w-24 rounded bg-muted" />
            <div className="h-4 w-16 rounded-md bg-muted" />
            <div className="ml-auto h-3 w-20 rounded bg-muted" />
          </div>
        </div>
      ))}
    </div>
  );
}
