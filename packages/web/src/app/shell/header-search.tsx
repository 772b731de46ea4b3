import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { SearchField } from '@/components/search-field';
import { hasOpenDialog } from '@/components/ui/dialog-stack';
import { cn } from '@/lib/cn';
import { askedElsewhereState, searchPath } from '@/lib/search-address';
import { useSpace } from '@/lib/space';
import { isSearchShortcut } from './header-search-rules';

interface HeaderSearchProps {
  className?: string;
  /** Answers the `/` shortcut (the desktop field; the mobile menu's is not on screen until opened). */
  shortcut?: boolean;
  /** After the question is sent (the mobile menu closes). */
  onAsked?: () => void;
  autoFocus?: boolean;
}

/**
 * The search field of the signed-in header (desktop) and the mobile menu:
 * Enter opens Search (`/search?q=<text>`) in the space shown; `/` focuses it
 * unless a text field has focus.
 */
export function HeaderSearch({
  className,
  shortcut = false,
  onAsked,
  autoFocus,
}: HeaderSearchProps) {
  const [question, setQuestion] = useState('');
  const navigate = useNavigate();
  const { linkTo } = useSpace();
  const field = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!shortcut) return;
    function onKeyDown(event: KeyboardEvent) {
      const input = field.current;
      // Hidden (a phone's layout) or behind an open dialog: the key is not ours.
      if (!input || hasOpenDialog()) return;
      if (typeof input.checkVisibility === 'function' && !input.checkVisibility()) return;
      if (!isSearchShortcut(event, document.activeElement)) return;
      event.preventDefault();
      input.focus();
      input.select();
    }
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [shortcut]);

  function submit(event: FormEvent) {
    event.preventDefault();
    void navigate(linkTo(searchPath(question)), { state: askedElsewhereState() });
    setQuestion('');
    field.current?.blur();
    onAsked?.();
  }

  return (
    <form
      role="search"
      aria-label="Quick search"
      onSubmit={submit}
      className={cn('min-w-0', className)}
    >
      <SearchField
        ref={field}
        aria-label="Search memory"
        aria-keyshortcuts={shortcut ? '/' : undefined}
        placeholder="Search…"
        autoComplete="off"
        enterKeyHint="search"
        autoFocus={autoFocus}
        className="h-8 text-base sm:text-sm"
        value={question}
        onChange={(event) => setQuestion(event.target.value)}
      >
        {shortcut && question === '' ? (
          <kbd
            aria-hidden
            className="pointer-events-none absolute top-1/2 right-2 hidden -translate-y-1/2 xl:block rounded border border-border bg-muted px-1.5 font-mono text-[11px] leading-4 text-muted-foreground"
          >
            /
          </kbd>
        ) : null}
      </SearchField>
    </form>
  );
}
