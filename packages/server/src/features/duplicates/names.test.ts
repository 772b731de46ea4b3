import { describe, expect, it } from 'vitest';
import { blockingKeys } from './blocking.js';
import {
  analyseName,
  compareNameLists,
  compareNames,
  editDistance,
  trigramSimilarity,
  type NameKind,
} from './names.js';
import { canonicalType, PROPOSE_AT, scorePair } from './scoring.js';

const compare = (a: string, b: string, kind: NameKind = 'other') =>
  compareNames(analyseName(a), analyseName(b), kind);

const score = (a: string, b: string, typeA = 'person', typeB = typeA, extra = {}) =>
  scorePair({
    namesA: [analyseName(a)],
    namesB: [analyseName(b)],
    typeA,
    typeB,
    sharedNeighbours: 0,
    sharedObservations: 0,
    ...extra,
  });

/** Whether `a` finds `b` through the blocking keys (a probe key of one is a stored key of the other). */
const finds = (a: string, b: string) => {
  const probe = blockingKeys(analyseName(a)).probe;
  const stored = new Set(blockingKeys(analyseName(b)).stored);
  return probe.some((key) => stored.has(key));
};

describe('analyseName', () => {
  it('folds case, accents and punctuation, and takes off suffixes, titles and numbers', () => {
    expect(analyseName('  José   García ')).toMatchObject({
      lowered: 'josé garcía',
      unaccented: 'jose garcia',
      words: ['jose', 'garcia'],
    });
    expect(analyseName('Acme, Inc.')).toMatchObject({ words: ['acme'], suffixes: ['inc'] });
    expect(analyseName('Siemens A.G.')).toMatchObject({ words: ['siemens'], suffixes: ['ag'] });
    expect(analyseName('Smith & Co.')).toMatchObject({ words: ['smith'], suffixes: ['co'] });
    expect(analyseName('Dr. Ada Lovelace')).toMatchObject({
      words: ['ada', 'lovelace'],
      titles: ['dr'],
    });
    expect(analyseName('The Beatles')).toMatchObject({ words: ['beatles'] });
    expect(analyseName('Kafka Streams v2.0')).toMatchObject({
      words: ['kafka', 'streams'],
      numbers: ['2'],
    });
    expect(analyseName('Henry VIII')).toMatchObject({ words: ['henry'], numbers: ['8'] });
    expect(analyseName('apple (fruit)')).toMatchObject({ words: ['apple'], qualifiers: ['fruit'] });
    expect(analyseName('U.S.A.')).toMatchObject({ words: ['usa'] });
    expect(analyseName('K8s')).toMatchObject({ words: ['k8s'], numeronym: 'k8s', numbers: [] });
    expect(analyseName('C++').compact).toBe('cpp');
    expect(analyseName('C#').compact).toBe('csharp');
    expect(analyseName('Straße').compact).toBe('strasse');
    // A name that is only a suffix keeps it.
    expect(analyseName('Limited')).toMatchObject({ words: ['limited'], suffixes: [] });
  });
});

describe('compareNames: the same thing', () => {
  const cases: [string, string, string, NameKind?][] = [
    ['Ada Lovelace', 'ada  lovelace', 'same name but for case and spacing'],
    ['José García', 'Jose Garcia', 'same name but for accents'],
    ['Node.js', 'NodeJS', 'same name but for punctuation and spacing'],
    ['Acme', 'Acme Inc.', 'same name but for a company suffix'],
    ['Acme Corp', 'ACME Corporation', 'same name but for a company suffix'],
    ['Dr. Ada Lovelace', 'Ada Lovelace', 'same name but for a title'],
    ['Lovelace, Ada', 'Ada Lovelace', 'same words in another order'],
    ['A. Lovelace', 'Ada Lovelace', 'one name is an abbreviation of the other'],
    ['Lovelace, A.', 'Ada Lovelace', 'one name is an abbreviation of the other'],
    ['Mt. Everest', 'Mount Everest', 'one name is an abbreviation of the other'],
    ['NYC', 'New York City', 'one name is an abbreviation of the other'],
    ['K8s', 'Kubernetes', 'one name is an abbreviation of the other'],
    ['Postgres', 'PostgreSQL', 'one name is a shortened form of the other'],
    ['Seb Berg', 'Sebastian Berg', 'one name is a shortened form of the other'],
    ['Chris Evans', 'Christopher Evans', 'one name uses a nickname'],
    ['Bob Smith', 'Robert Smith', 'one name uses a nickname'],
    ['Kubernetes', 'Kuberntes', 'names differ by one typo'],
    ['Grace Hopper', 'Grace Hoppre', 'names differ by one typo'],
    ['Irene Porter', 'Iree Porter', 'names differ by one typo'],
    ['MongoDB', 'Mongo', 'one name is a shortened form of the other'],
    ['Node', 'Node.js', 'one name is a shortened form of the other'],
    ['Amazon', 'Amazon.com', 'one name is a shortened form of the other'],
    ['JS', 'JavaScript', 'one name is an abbreviation of the other'],
    ['AT&T', 'ATT', 'same name but for punctuation and spacing'],
    ['Procter & Gamble', 'Procter and Gamble', 'same name but for punctuation and spacing'],
    ['Ada', 'Ada Lovelace', 'one name is part of the other', 'person'],
    ['Acme', 'Acme Labs', 'same name but for a company suffix', 'organization'],
  ];
  it.each(cases)('%s ~ %s: %s', (a, b, reason, kind) => {
    const match = compare(a, b, kind);
    expect(match?.reason).toBe(reason);
    expect(match!.score).toBeGreaterThanOrEqual(0.6);
    expect(match!.cap).toBeUndefined();
    // Either way round.
    expect(compare(b, a, kind)?.score).toBe(match!.score);
  });

  it('ranks near-identical spellings above initials, typos and parts', () => {
    const s = (a: string, b: string, kind?: NameKind) => compare(a, b, kind)!.score;
    expect(s('Ada Lovelace', 'ada lovelace')).toBeGreaterThan(s('A. Lovelace', 'Ada Lovelace'));
    expect(s('A. Lovelace', 'Ada Lovelace')).toBeGreaterThan(s('Ada', 'Ada Lovelace', 'person'));
    expect(s('Ada', 'Ada Lovelace', 'person')).toBeGreaterThan(s('Ada', 'Ada Lovelace', 'other'));
  });
});

describe('compareNames: hard negatives score low', () => {
  const cases: [string, string, NameKind?][] = [
    ['Upper Silver Lake', 'Lower Silver Lake'],
    ['Silver Lake', 'Upper Silver Lake'],
    ['Kafka Streams v1', 'Kafka Streams v2'],
    ['Kafka Streams', 'Kafka Streams v2'],
    ['Python 2', 'Python 3'],
    ['Henry VII', 'Henry VIII'],
    ['Java', 'JavaScript'],
    ['C', 'C++'],
    ['C#', 'C++'],
    ['Ada Lovelace', 'Ada Smith', 'person'],
    ['Mark Smith', 'Mary Smith', 'person'],
    ['Ada Smith', 'Adam Smith', 'person'],
    ['Daniel Smith', 'Danielle Smith', 'person'],
    ['A. Lovelace', 'B. Lovelace', 'person'],
    ['Apple', 'apple (fruit)'],
    ['Mercury (planet)', 'Mercury (element)'],
    ['Paris, France', 'Paris, Texas'],
    ['Otter Point', 'Outer Crystal Point'],
    ['Pyrant', 'PyrantFlow'],
    ['TypeScript', 'Type'],
    ['JS', 'Java'],
    ['iPhone 14 Pro', 'iPhone 14'],
    ['Windows 10', 'Windows 11'],
  ];
  it.each(cases)('%s / %s', (a, b, kind) => {
    const match = compare(a, b, kind);
    expect(match?.score ?? 0).toBeLessThan(0.45);
    expect(compare(b, a, kind)?.score ?? 0).toBeLessThan(0.45);
  });

  it('is less sure of a different first letter, and of two edits', () => {
    expect(compare('Haltek', 'Faltek')!.score).toBeLessThan(compare('Haltek', 'Haltec')!.score);
    expect(compare('Ornoworks Relay', 'Arioworks Relay')).toMatchObject({
      reason: 'names differ by two typos',
      score: expect.toSatisfy((value: number) => value < 0.5),
    });
  });

  it('nothing in common is no match', () => {
    expect(compare('Ada Lovelace', 'Charles Babbage')).toBeUndefined();
    expect(compare('🚀', '🎉')).toBeUndefined();
  });
});

describe('blockingKeys', () => {
  it('puts the names worth comparing in one block, both ways', () => {
    const pairs: [string, string][] = [
      ['Ada Lovelace', 'ada lovelace'],
      ['Acme', 'Acme Inc.'],
      ['Lovelace, Ada', 'Ada Lovelace'],
      ['A. Lovelace', 'Ada Lovelace'],
      ['Lovelace, A.', 'Ada Lovelace'],
      ['Ada', 'Ada Lovelace'],
      ['Lovelace', 'Ada Lovelace'],
      ['NYC', 'New York City'],
      ['BOA', 'Bank of America'],
      ['K8s', 'Kubernetes'],
      ['JS', 'JavaScript'],
      ['Node', 'Node.js'],
      ['Grace Hopper', 'Grace Hoppre'],
      ['Kubernetes', 'Kuberntes'],
      ['Redis', 'Rdeis'],
      ['Postgres', 'PostgreSQL'],
      ['Chris Evans', 'Christopher Evans'],
      ['Bob Smith', 'Robert Smith'],
      ['Mt. Everest', 'Mount Everest'],
    ];
    for (const [a, b] of pairs) {
      expect(finds(a, b), `${a} → ${b}`).toBe(true);
      expect(finds(b, a), `${b} → ${a}`).toBe(true);
    }
  });

  it('blocks any one edit of a name of five letters or more with it', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const length = 5 + next(12);
      const word = Array.from({ length }, () => letters[next(26)]).join('');
      const at = next(length);
      const letter = letters[next(26)]!;
      const edits = [
        word.slice(0, at) + letter + word.slice(at + 1),
        word.slice(0, at) + letter + word.slice(at),
        word.slice(0, at) + word.slice(at + 1),
      ];
      if (at + 1 < length) {
        edits.push(word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2));
      }
      for (const edit of edits) {
        if (edit.length < 5 || edit === word) continue;
        expect(finds(word, edit), `${word} → ${edit}`).toBe(true);
        expect(finds(edit, word), `${edit} → ${word}`).toBe(true);
      }
    }
  });

  it('keeps names apart that share nothing', () => {
    expect(finds('Ada Lovelace', 'Charles Babbage')).toBe(false);
    expect(finds('John Smith', 'Jane Doe')).toBe(false);
    expect(finds('Kubernetes', 'Terraform')).toBe(false);
  });
});

describe('edit distance and trigrams', () => {
  it('counts a transposition as one edit', () => {
    expect(editDistance('lovelace', 'lovelcae')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
  });

  it('computes trigram similarity as pg_trgm does', () => {
    expect(trigramSimilarity('word', 'word')).toBe(1);
    // pg_trgm: similarity('postgres', 'postgresql') = 0.6666667
    expect(trigramSimilarity('postgres', 'postgresql')).toBeCloseTo(8 / 12, 5);
    expect(trigramSimilarity('', 'x')).toBe(0);
  });
});

describe('scorePair', () => {
  it('adds the reasons of every signal, best evidence first', () => {
    expect(score('Ada Lovelace', 'A. Lovelace')).toEqual({
      score: expect.closeTo(0.87, 2),
      reasons: ['one name is an abbreviation of the other', 'same type'],
    });
    const supported = score('Ada', 'Ada Lovelace', 'person', 'person', {
      sharedNeighbours: 4,
      sharedObservations: 2,
    })!;
    expect(supported.reasons).toEqual([
      'one name is part of the other',
      'same type',
      '4 shared neighbours',
      '2 shared observations',
    ]);
    expect(supported.score).toBeGreaterThan(score('Ada', 'Ada Lovelace')!.score);
    expect(supported.score).toBeLessThanOrEqual(1);
  });

  it('lowers different types below the proposal line', () => {
    const apple = score('Apple', 'apple', 'organization', 'food')!;
    expect(apple.reasons).toContain('different types (organization and food)');
    expect(apple.score).toBeLessThan(PROPOSE_AT);
    expect(score('Ada Lovelace', 'ada lovelace', 'Person', 'people')!.reasons).toContain(
      'same type',
    );
  });

  it('never lifts names that disagree, whatever else they share', () => {
    const colleagues = score('Ada Lovelace', 'Ada Smith', 'person', 'person', {
      sharedNeighbours: 5,
      sharedObservations: 5,
    })!;
    expect(colleagues.score).toBeLessThan(PROPOSE_AT);
  });

  it('weighs a shared first name less when many have it', () => {
    const alone = score('Ada', 'Ada Lovelace', 'person', 'person', { partHolders: () => 1 })!;
    const crowded = score('Ada', 'Ada Lovelace', 'person', 'person', { partHolders: () => 4 })!;
    expect(crowded.score).toBeLessThan(alone.score);
    expect(crowded.reasons).toContain('4 entities have "ada" in their name');
  });

  it('compares every name of one entity with every name of the other', () => {
    const match = compareNameLists(
      [analyseName('Grace Hopper'), analyseName('Amazing Grace')],
      [analyseName('grace hopper')],
    );
    expect(match?.reason).toBe('same name but for case and spacing');
  });

  it('canonicalises types', () => {
    expect(canonicalType('People')).toBe('person');
    expect(canonicalType('Company')).toBe('organization');
    expect(canonicalType('Technologies')).toBe('technology');
    expect(canonicalType('Programming language')).toBe('technology');
    expect(canonicalType('Fruits')).toBe('fruit');
  });
});
