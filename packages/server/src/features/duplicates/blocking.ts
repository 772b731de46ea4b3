import { GIVEN_NAMES } from './name-words.js';
import { acronymsOf, type NameForm } from './names.js';

/**
 * Which names are worth comparing (docs/consolidation.md, "Background
 * upkeep"): keys that put a name in a small block with the names that
 * `compareNames` could find alike, so that an entity is compared with a few
 * others, never with its whole space.
 */

/** Shorter names are not keyed by their halves (a typo needs a word of five letters). */
const MIN_HALVED = 5;

/**
 * Two names one edit apart (a letter changed, added or dropped, or two
 * swapped) share the first or the second half of the shorter one's letters,
 * at the other's length: a name stores its halves under its own length, and
 * probes the halves at its length and the lengths one off.
 */
function halfKeys(compact: string, stored: Set<string>, probe: Set<string>): void {
  const length = compact.length;
  if (length < MIN_HALVED) return;
  for (const half of new Set([Math.floor((length - 1) / 2), Math.floor(length / 2)])) {
    stored.add(`l:${length}:${compact.slice(0, half)}`);
    stored.add(`r:${length}:${compact.slice(length - half)}`);
  }
  for (const other of [length - 1, length, length + 1]) {
    if (other < MIN_HALVED) continue;
    // At the same length, both halves stored: two letters swapped across the middle keep the shorter.
    const halves =
      other === length
        ? [Math.floor((length - 1) / 2), Math.floor(length / 2)]
        : [Math.floor(Math.min(length, other) / 2)];
    for (const half of halves) {
      probe.add(`l:${other}:${compact.slice(0, half)}`);
      probe.add(`r:${other}:${compact.slice(length - half)}`);
    }
  }
}

/**
 * Keys that put a name in the same block as the names worth comparing it
 * with. A name is stored under `stored` and looks up `probe`: the other names
 * it finds are those stored under one of its probe keys. The keys come in
 * pairs so that a name finds another exactly when the other finds it (a
 * single word probes the names whose first or last word it is; those probe
 * the single words they start or end with). Every difference `compareNames`
 * proposes has a key, and each key's block stays small however big the
 * space: the same compact words (case, spacing, punctuation, accents,
 * suffixes, titles), the same words in any order, an initial and the last
 * word, a given name (or its nickname) and the last word, one edit apart (`halfKeys`), a single word and a longer name it
 * begins or ends, an acronym and the words it abbreviates, a numeronym, and
 * a single word's first five letters (a shortened form).
 */
export function blockingKeys(form: NameForm): { stored: string[]; probe: string[] } {
  const stored = new Set<string>();
  const probe = new Set<string>();
  const both = (key: string) => {
    stored.add(key);
    probe.add(key);
  };
  const { words, compact } = form;
  if (compact) both(`c:${compact}`);
  halfKeys(compact, stored, probe);
  if (words.length >= 2) {
    const first = words[0]!;
    const last = words.at(-1)!;
    both(`o:${[...words].sort().join(' ')}`);
    if (last.length > 1) both(`i:${first[0]}|${last}`);
    // "Lovelace, A.": the initial comes last.
    else both(`i:${last}|${first}`);
    // "Bob Smith", "Robert Smith": the given name a nickname stands for.
    for (const given of GIVEN_NAMES.get(first) ?? []) both(`g:${given}|${last}`);
    stored.add(`p:${first}`);
    stored.add(`p:${last}`);
    probe.add(`w:${first}`);
    probe.add(`w:${last}`);
    for (const initials of acronymsOf(words)) {
      stored.add(`a:${initials}`);
      probe.add(`A:${initials}`);
    }
  } else if (words.length === 1) {
    const word = words[0]!;
    stored.add(`w:${word}`);
    probe.add(`p:${word}`);
    if (word.length >= 2 && word.length <= 6) {
      stored.add(`A:${word}`);
      probe.add(`a:${word}`);
    }
    // "JavaScript": its parts' initials ("JS") are an acronym of it.
    if (form.camel) {
      stored.add(`a:${acronymsOf(form.camel)[0]}`);
      probe.add(`A:${acronymsOf(form.camel)[0]}`);
    }
    if (form.numeronym) {
      stored.add(`N:${form.numeronym}`);
      probe.add(`n:${form.numeronym}`);
    } else if (word.length >= 5) {
      const key = `${word[0]}${word.length - 2}${word.at(-1)}`;
      stored.add(`n:${key}`);
      probe.add(`N:${key}`);
      both(`f:${word.slice(0, 5)}`);
    }
  }
  return { stored: [...stored], probe: [...probe] };
}
