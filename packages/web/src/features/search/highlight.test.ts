import { describe, expect, it } from 'vitest';
import { highlightParts, normalizeWord, queryWords, wordsMatch } from './highlight';

const marked = (text: string, query: string) =>
  highlightParts(text, queryWords(query))
    .filter((part) => part.match)
    .map((part) => part.text);

describe('queryWords', () => {
  it('keeps the meaningful words of a question, lower-cased, each once', () => {
    expect(queryWords('When did Maya start her new job?')).toEqual(['maya', 'start', 'new', 'job']);
    expect(queryWords('What does Maya prefer? Maya!')).toEqual(['maya', 'prefer']);
  });

  it('drops possessives and accents, keeps numbers', () => {
    expect(queryWords("Where is Zoë's café in 2024")).toEqual(['zoe', 'cafe', '2024']);
  });

  it('has nothing to mark for a question of stop words only', () => {
    expect(queryWords('what is it?')).toEqual([]);
    expect(queryWords('   ')).toEqual([]);
  });
});

describe('wordsMatch', () => {
  it('matches equal words and a shorter word of 4+ letters that starts the longer', () => {
    expect(wordsMatch('job', 'job')).toBe(true);
    expect(wordsMatch('start', 'started')).toBe(true);
    expect(wordsMatch('preferences', 'prefer')).toBe(true);
    expect(wordsMatch('move', 'moves')).toBe(true);
  });

  it('matches forms that differ by one common ending', () => {
    expect(wordsMatch('started', 'starting')).toBe(true);
    expect(wordsMatch('jobs', 'job')).toBe(true);
    expect(wordsMatch('boxes', 'box')).toBe(true);
  });

  it('does not match short prefixes or different words', () => {
    expect(wordsMatch('art', 'artist')).toBe(false);
    expect(wordsMatch('car', 'cart')).toBe(false);
    expect(wordsMatch('start', 'stark')).toBe(false);
  });

  it('normalises words before they are compared', () => {
    expect(normalizeWord('Maya’s')).toBe('maya');
    expect(normalizeWord('ÉCOLE')).toBe('ecole');
  });
});

describe('highlightParts', () => {
  it('marks every word of the text that answers a word of the question', () => {
    expect(
      marked(
        'Maya started her new job at Acme in March; the job suits Maya’s skills',
        'When did Maya start her new job?',
      ),
    ).toEqual(['Maya', 'started', 'new', 'job', 'job', 'Maya’s']);
  });

  it('joined, the parts give the text back unchanged', () => {
    const text = '  Prefers tea — never coffee.\nLikes <b>bold</b> & "quotes"  ';
    const parts = highlightParts(text, queryWords('what does she prefer'));
    expect(parts.map((part) => part.text).join('')).toBe(text);
    expect(parts.filter((part) => part.match).map((part) => part.text)).toEqual(['Prefers']);
  });

  it('marks whole words only, in any case', () => {
    expect(marked('Startup STARTED restarted', 'start')).toEqual(['Startup', 'STARTED']);
  });

  it('never marks stop words, even when the question has them', () => {
    expect(marked('What is the plan for the launch?', 'what is the plan')).toEqual(['plan']);
  });

  it('leaves the text in one plain part when nothing matches', () => {
    expect(highlightParts('Likes green tea', queryWords('coffee'))).toEqual([
      { text: 'Likes green tea', match: false },
    ]);
    expect(highlightParts('Likes green tea', [])).toEqual([
      { text: 'Likes green tea', match: false },
    ]);
    expect(highlightParts('', ['tea'])).toEqual([]);
  });

  it('keeps text that looks like HTML as text', () => {
    const parts = highlightParts('<img src=x onerror=alert(1)> image', queryWords('image'));
    expect(parts).toEqual([
      { text: '<img src=x onerror=alert(1)> ', match: false },
      { text: 'image', match: true },
    ]);
  });
});
