import { highlightParts } from '../highlight';

/**
 * `text` with the words that match the question marked. Built from text
 * nodes and <mark> elements only: an observation is never read as HTML.
 */
export function HighlightedText({ text, words }: { text: string; words: readonly string[] }) {
  return (
    <>
      {highlightParts(text, words).map((part, index) =>
        part.match ? (
          <mark
            key={index}
            className="rounded-[3px] bg-primary/15 font-medium dark:bg-primary/35 text-foreground [box-decoration-break:clone]"
          >
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}
