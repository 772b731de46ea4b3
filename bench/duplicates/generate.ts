/**
 * The evaluation set of bench/duplicates, generated from a seed: a graph of
 * people, companies, products, technologies and places (with observations
 * and relations, as agents write them), into which duplicates of every kind
 * issue 59 names are planted — each a second entity for one already there —
 * beside hard negatives: pairs that look alike and are two things. Nothing
 * here reads the server's code: the names are made as people and agents
 * write them, not as the finder compares them.
 */

export interface GenEntity {
  name: string;
  type: string;
  observations: string[];
}

export interface GenRelation {
  from: string;
  to: string;
  type: string;
}

export const PLANTED_KINDS = [
  'case and spacing',
  'accents',
  'punctuation',
  'company suffix',
  'initials',
  'first name only',
  'title',
  'word order',
  'typo',
  'acronym',
  'shortened',
  'abbreviated word',
] as const;
export type PlantedKind = (typeof PLANTED_KINDS)[number];

export const NEGATIVE_KINDS = [
  'one shared name part',
  'one name starts the other',
  'other number',
  'other qualifier',
  'one name, two types',
] as const;
export type NegativeKind = (typeof NEGATIVE_KINDS)[number];

export interface Pair<K> {
  a: string;
  b: string;
  kind: K;
}

export interface EvalSet {
  seed: number;
  entities: GenEntity[];
  relations: GenRelation[];
  planted: Pair<PlantedKind>[];
  negatives: Pair<NegativeKind>[];
}

/** mulberry32: a small seeded generator, the same sequence for the same seed everywhere. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
    shuffle<T>(items: T[]): T[] {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [items[i], items[j]] = [items[j]!, items[i]!];
      }
      return items;
    },
  };
}
type Random = ReturnType<typeof random>;

// ── word lists ───────────────────────────────────────────────────────────────

const FIRST = `Ada Alan Grace Katherine Linus Margaret Barbara Edsger Donald Frances Radia Tim Vint
Hedy Dorothy Annie Mary Joan Shafi Leslie John Ken Dennis Bjarne Guido Yukihiro Anders James Brendan
Rasmus Larry Sergey Sophie Marie Lise Emmy Rosalind Chien Jocelyn Vera Henrietta Cecilia Ruth Hannah
Oliver Thomas William Henry George Arthur Charles Edward Frederick Albert Isaac Nikola Michael Daniel
Samuel Benjamin Matthew Andrew Peter Paul Mark Luke Simon Victor Hugo Felix Oscar Leo Max Emil Anton
Clara Julia Laura Emma Olivia Amelia Isabel Lucia Elena Irene Nadia Sara Mia Nora Alice Beatrice
Priya Arjun Ravi Anika Mei Wei Hiroshi Yuki Kenji Aiko Omar Layla Yusuf Amara Kwame Zainab Tariq
Mateo Santiago Diego Valentina Camila Lucas Gabriel Rafael Ingrid Astrid Lars Nils Freya Sven`
  .split(/\s+/)
  .filter(Boolean);

const FIRST_ACCENTED =
  `José Zoë Chloé Renée André François Søren Björn Łukasz Zoltán Ångel Inès Håkon
Jérôme Mónica Sebastián Dvořák Thérèse Noémie Raúl`
    .split(/\s+/)
    .filter(Boolean);

const LAST = `Lovelace Turing Hopper Johnson Torvalds Hamilton Liskov Dijkstra Knuth Allen Perlman
Berners Cerf Lamarr Vaughan Easley Keller Clarke Goldwasser Lamport McCarthy Thompson Ritchie
Stroustrup Rossum Matsumoto Hejlsberg Gosling Eich Lerdorf Page Brin Germain Curie Meitner Noether
Franklin Wu Bell Leavitt Payne Cooper Smith Brown Taylor Wilson Davies Evans Walker Wright Robinson
Thompson Hughes Edwards Green Hall Wood Harris Martin Jackson Clark Lewis Young King Scott Baker
Adams Mitchell Campbell Roberts Carter Phillips Parker Morris Rogers Reed Cook Morgan Murphy Bailey
Rivera Cooper Richardson Cox Howard Ward Torres Peterson Gray Ramirez Watson Brooks Kelly Sanders
Price Bennett Barnes Ross Henderson Coleman Jenkins Perry Powell Patterson Hughes Flores Washington
Butler Simmons Foster Gonzales Bryant Alexander Russell Griffin Hayes Myers Ford Hamilton Graham
Sullivan Wallace Woods Cole West Jordan Owens Reynolds Fisher Ellis Harrison Gibson McDonald Cruz
Marshall Ortiz Gomez Murray Freeman Wells Webb Simpson Stevens Tucker Porter Hunter Hicks Crawford
Henry Boyd Mason Morales Kennedy Warren Dixon Ramos Reyes Burns Gordon Shaw Holmes Rice Robertson
Nakamura Tanaka Sato Suzuki Kim Park Chen Wang Li Zhang Patel Sharma Gupta Singh Okafor Mensah
Haddad Nasser Lindqvist Andersen Johansson Novak Kowalski Horvat Rossi Bianchi Moreau Lefebvre`
  .split(/\s+/)
  .filter(Boolean);

const LAST_ACCENTED =
  `García Müller Núñez Ångström Gómez Pérez Fernández Løvås Jäger Šimek Dvořák Böhm
Citroën Hernández Martínez Ramírez Sánchez Köhler Öberg Váradi`
    .split(/\s+/)
    .filter(Boolean);

const SYLLABLES =
  `no va zen qu ant hex lum or bi vert ki lo ar ca de fi ga hel io ja ko mi ne pa ri so
ta ul vi xa ze bro cor dex eon fal gor hal ix jin kor lux mer nim os pyr qua ras sol tor ul vor wyn`
    .split(/\s+/)
    .filter(Boolean);
const BRAND_ENDS = `ia ex ify io ara on tek ly wave forge works stone field bridge craft line point
sys logic ware nest base port gate labs mark`
  .split(/\s+/)
  .filter(Boolean);
const COMPANY_WORDS =
  `Analytics Robotics Logistics Health Foods Energy Capital Media Motors Airlines
Insurance Pharma Textiles Shipping Mining Biotech Semiconductors Outfitters Brewing Aerospace`
    .split(/\s+/)
    .filter(Boolean);
const LEGAL = [
  'Inc.',
  'Ltd',
  'GmbH',
  'LLC',
  'Corp.',
  'S.A.',
  'PLC',
  'Co.',
  'Limited',
  'Corporation',
];
const INSTITUTION_FIRST =
  `National International United Federal Global Pacific Atlantic Northern Southern
Royal Central Continental Metropolitan Allied`
    .split(/\s+/)
    .filter(Boolean);
const INSTITUTION_LAST =
  `Machines Systems Airlines Bank Institute Agency Council Association Railways
Laboratories Observatory Foundation Exchange Authority`
    .split(/\s+/)
    .filter(Boolean);
const PRODUCT_WORDS =
  `Studio Cloud Pad Hub Desk Vault Pulse Beacon Canvas Ledger Compass Harbor Relay
Atlas Sentinel Orbit Prism Loom Anchor Spark`
    .split(/\s+/)
    .filter(Boolean);
const TECH_SHORT_ENDS = ['DB', 'JS', 'QL', 'ML', 'IO'];
const TECH_LONG_ENDS = ['Script', 'Stack', 'Flow', 'Graph', 'Queue', 'Engine', 'Forge', 'Shield'];
const PLACE_STEMS =
  `Silver Pine Cedar Eagle Maple Stone Clear Bear Fox Willow Granite Crystal Echo Raven
Hollow Amber Birch Copper Misty Thunder Golden Shadow Juniper Heron Aspen Sparrow Elk Otter Bramble`
    .split(/\s+/)
    .filter(Boolean);
const PLACE_FEATURES =
  `Lake Valley Ridge Falls Creek Bay Harbor Springs Hill Island Canyon Meadow Point
Grove Forest Marsh Peak`
    .split(/\s+/)
    .filter(Boolean);
const TOWN_ENDS = ['ville', 'ton', 'burg', 'field', 'ford', 'haven', 'mouth', 'dale'];
const ABBREVIATED_PLACES: [string, string][] = [
  ['Mount', 'Mt.'],
  ['Saint', 'St.'],
  ['Fort', 'Ft.'],
  ['Port', 'Pt.'],
];
const QUALIFIER_PAIRS: [string, string][] = [
  ['Upper', 'Lower'],
  ['North', 'South'],
  ['East', 'West'],
  ['Old', 'New'],
  ['Little', 'Big'],
  ['Inner', 'Outer'],
];
/** Words that name two things of different types (one written in lower case or with what it is). */
const AMBIGUOUS: [string, string, string][] = [
  ['Apple', 'organization', 'food'],
  ['Jaguar', 'organization', 'animal'],
  ['Python', 'technology', 'animal'],
  ['Mercury', 'planet', 'element'],
  ['Amazon', 'organization', 'river'],
  ['Orange', 'organization', 'fruit'],
  ['Shell', 'organization', 'object'],
  ['Oracle', 'organization', 'concept'],
  ['Puma', 'organization', 'animal'],
  ['Corona', 'organization', 'phenomenon'],
  ['Delta', 'organization', 'landform'],
  ['Phoenix', 'place', 'creature'],
  ['Falcon', 'product', 'animal'],
  ['Cobra', 'product', 'animal'],
  ['Lotus', 'organization', 'plant'],
  ['Atlas', 'product', 'book'],
  ['Ruby', 'technology', 'gem'],
  ['Swift', 'technology', 'bird'],
  ['Rust', 'technology', 'substance'],
  ['Java', 'technology', 'island'],
  ['Saturn', 'planet', 'vehicle'],
  ['Sage', 'organization', 'plant'],
  ['Crane', 'person', 'bird'],
  ['Seal', 'person', 'animal'],
  ['Rose', 'person', 'flower'],
];
const OBJECTS = 'coffee tea chess hiking jazz sailing pottery cycling poetry rowing'.split(' ');
const ROLES = 'engineer researcher designer manager analyst founder advisor director'.split(' ');

// ── making names ─────────────────────────────────────────────────────────────

const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);

function brand(rng: Random): string {
  const parts = rng.chance(0.5) ? 2 : 1;
  let stem = '';
  for (let i = 0; i < parts; i++) stem += rng.pick(SYLLABLES);
  return capital(stem + rng.pick(BRAND_ENDS));
}

const LEGAL_WORDS = new Set([
  'inc',
  'ltd',
  'gmbh',
  'llc',
  'corp',
  'sa',
  'plc',
  'co',
  'limited',
  'corporation',
  's',
  'a',
]);

/**
 * A folded key: two names with the same key are one name written twice (case,
 * accents, punctuation and a company's legal form aside).
 */
function fold(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  while (words.length > 1 && LEGAL_WORDS.has(words.at(-1)!)) words.pop();
  return words.join('');
}

function stripAccents(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[øØ]/g, (c) => (c === 'ø' ? 'o' : 'O'))
    .replace(/[łŁ]/g, (c) => (c === 'ł' ? 'l' : 'L'));
}

const KEYBOARD_NEIGHBOURS: Record<string, string> = {
  a: 'sq',
  b: 'vn',
  c: 'xv',
  d: 'sf',
  e: 'wr',
  f: 'dg',
  g: 'fh',
  h: 'gj',
  i: 'uo',
  j: 'hk',
  k: 'jl',
  l: 'k',
  m: 'n',
  n: 'bm',
  o: 'ip',
  p: 'o',
  q: 'w',
  r: 'et',
  s: 'ad',
  t: 'ry',
  u: 'yi',
  v: 'cb',
  w: 'qe',
  x: 'zc',
  y: 'tu',
  z: 'x',
};

/** One slip of the keyboard in one word of at least five letters (not its first letter). */
function typo(rng: Random, name: string): string | undefined {
  const words = name.split(' ');
  const long = words
    .map((word, index) => [word, index] as const)
    .filter(([w]) => /^\p{L}{5,}$/u.test(w));
  if (long.length === 0) return undefined;
  const [word, index] = rng.pick(long);
  const at = 1 + rng.int(word.length - 2);
  const letter = word[at]!.toLowerCase();
  let changed: string;
  switch (rng.int(4)) {
    case 0: // a neighbouring key
      changed =
        word.slice(0, at) +
        rng.pick([...(KEYBOARD_NEIGHBOURS[letter] ?? 'e')]) +
        word.slice(at + 1);
      break;
    case 1: // two letters swapped
      changed = word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
      break;
    case 2: // a letter dropped
      changed = word.slice(0, at) + word.slice(at + 1);
      break;
    default: // a letter doubled
      changed = word.slice(0, at) + word[at] + word.slice(at);
  }
  if (changed.toLowerCase() === word.toLowerCase()) return undefined;
  words[index] = changed;
  return words.join(' ');
}

// ── the set ──────────────────────────────────────────────────────────────────

interface Base extends GenEntity {
  kind: 'person' | 'company' | 'institution' | 'product' | 'technology' | 'place' | 'town';
  /** Parts the variants are made from. */
  first?: string;
  last?: string;
  stem?: string;
  legal?: string;
}

export interface SetOptions {
  seed: number;
  entities: number;
  planted: number;
  negatives: number;
}

/**
 * `entities` entities in all: `planted` of them duplicates of others, and
 * `negatives` pairs (two entities each) that look alike and are not one thing.
 */
export function generateSet({ seed, entities, planted, negatives }: SetOptions): EvalSet {
  const rng = random(seed);
  const used = new Set<string>();
  const claim = (name: string) => {
    const key = fold(name);
    if (!key || used.has(key)) return false;
    used.add(key);
    return true;
  };

  // Hard negatives first, so the background does not take their names.
  const negativePairs: { a: GenEntity; b: GenEntity; kind: NegativeKind }[] = [];
  const ambiguous = rng.shuffle([...AMBIGUOUS]);
  for (let i = 0; negativePairs.length < negatives && i < negatives * 50; i++) {
    const kind = NEGATIVE_KINDS[negativePairs.length % NEGATIVE_KINDS.length]!;
    const pair = negativePair(rng, kind, ambiguous);
    // One word as two things may differ in case alone ("Apple", "apple"); other pairs differ more.
    if (!pair || pair.a.name === pair.b.name) continue;
    if (fold(pair.a.name) === fold(pair.b.name) && kind !== 'one name, two types') continue;
    if (used.has(fold(pair.a.name)) || used.has(fold(pair.b.name))) continue;
    claim(pair.a.name);
    claim(pair.b.name);
    negativePairs.push({ ...pair, kind });
  }

  // The background: distinct things, named the way they are written.
  const background: Base[] = [];
  const backgroundCount = entities - planted - negativePairs.length * 2;
  const makers: [number, () => Base][] = [
    [0.36, () => person(rng)],
    [0.16, () => company(rng)],
    [0.05, () => institution(rng)],
    [0.13, () => product(rng)],
    [0.14, () => technology(rng)],
    [0.1, () => place(rng)],
    [0.06, () => town(rng)],
  ];
  while (background.length < backgroundCount) {
    let roll = rng.next();
    const make = makers.find(([share]) => (roll -= share) < 0)?.[1] ?? makers[0]![1];
    const base = make();
    if (claim(base.name)) background.push(base);
  }

  // Duplicates: a second entity for one of the background's, every kind in turn.
  const plantedPairs: { base: Base; copy: GenEntity; kind: PlantedKind }[] = [];
  const taken = new Set<Base>();
  for (let i = 0; plantedPairs.length < planted && i < planted * 200; i++) {
    const kind = PLANTED_KINDS[plantedPairs.length % PLANTED_KINDS.length]!;
    const base = rng.pick(background);
    if (taken.has(base)) continue;
    const name = variant(rng, base, kind);
    if (!name || fold(name) === '' || name === base.name) continue;
    // A variant that folds to another entity's name is that entity's duplicate too: skip it.
    if (fold(name) !== fold(base.name) && used.has(fold(name))) continue;
    if (plantedPairs.some((pair) => pair.copy.name === name)) continue;
    used.add(fold(name));
    taken.add(base);
    plantedPairs.push({
      base,
      copy: { name, type: synonymType(rng, base.type), observations: [] },
      kind,
    });
  }

  // Observations and relations, as agents write them.
  const orgs = background.filter((b) => b.kind === 'company' || b.kind === 'institution');
  const places = background.filter((b) => b.kind === 'place' || b.kind === 'town');
  const techs = background.filter((b) => b.kind === 'technology');
  const relations: GenRelation[] = [];
  const relate = (from: GenEntity, to: GenEntity | undefined, type: string) => {
    if (to && from.name !== to.name) relations.push({ from: from.name, to: to.name, type });
  };
  for (const base of background) {
    switch (base.kind) {
      case 'person': {
        const employer = rng.pick(orgs);
        const home = rng.pick(places);
        base.observations.push(
          `${base.first} works as ${rng.pick(['an', 'a'])} ${rng.pick(ROLES)} at ${employer?.name}`,
          `Enjoys ${rng.pick(OBJECTS)}`,
        );
        relate(base, employer, 'works_at');
        if (rng.chance(0.6)) relate(base, home, 'lives_in');
        if (rng.chance(0.5)) relate(base, rng.pick(techs), 'uses');
        break;
      }
      case 'company':
      case 'institution':
        base.observations.push(
          `Founded in ${1950 + rng.int(70)}`,
          `Has about ${10 + rng.int(5000)} employees`,
        );
        relate(base, rng.pick(places), 'based_in');
        break;
      case 'product':
        base.observations.push(`Sold since ${2000 + rng.int(24)}`);
        relate(base, rng.pick(orgs), 'made_by');
        if (rng.chance(0.5)) relate(base, rng.pick(techs), 'built_with');
        break;
      case 'technology':
        base.observations.push(
          `First released in ${1995 + rng.int(29)}`,
          `Licensed under ${rng.pick(['MIT', 'Apache 2.0', 'GPL', 'BSD'])}`,
        );
        break;
      default:
        base.observations.push(`Population about ${100 + rng.int(90000)}`);
        if (rng.chance(0.3)) relate(base, rng.pick(places), 'near');
    }
  }
  // A duplicate has facts of its own; often one the original has too, and one of its neighbours.
  for (const { base, copy } of plantedPairs) {
    copy.observations.push(`Mentioned in a conversation on day ${1 + rng.int(300)}`);
    if (rng.chance(0.4) && base.observations.length > 0) {
      const shared = rng.pick(base.observations);
      copy.observations.push(rng.chance(0.5) ? shared.toLowerCase() : `${shared}.`);
    }
    const neighbours = relations.filter((r) => r.from === base.name);
    if (rng.chance(0.4) && neighbours.length > 0) {
      const r = rng.pick(neighbours);
      relations.push({ from: copy.name, to: r.to, type: r.type });
    }
  }
  // Hard negatives live in the same world: colleagues share an employer, namesakes a town.
  for (const { a, b } of negativePairs) {
    a.observations.push(`Noted on day ${1 + rng.int(300)}`);
    b.observations.push(`Noted on day ${1 + rng.int(300)}`);
    if (rng.chance(0.3) && orgs.length > 0) {
      const org = rng.pick(orgs);
      relate(a, org, 'related_to');
      relate(b, org, 'related_to');
    }
  }

  const all: GenEntity[] = [
    ...background.map(({ name, type, observations }) => ({ name, type, observations })),
    ...plantedPairs.map((pair) => pair.copy),
    ...negativePairs.flatMap((pair) => [pair.a, pair.b]),
  ];
  return {
    seed,
    entities: rng.shuffle(all),
    relations: rng.shuffle(relations),
    planted: plantedPairs.map((pair) => ({
      a: pair.base.name,
      b: pair.copy.name,
      kind: pair.kind,
    })),
    negatives: negativePairs.map((pair) => ({ a: pair.a.name, b: pair.b.name, kind: pair.kind })),
  };

  function person(r: Random): Base {
    const first = r.chance(0.12) ? r.pick(FIRST_ACCENTED) : r.pick(FIRST);
    const last = r.chance(0.12) ? r.pick(LAST_ACCENTED) : r.pick(LAST);
    return {
      kind: 'person',
      name: `${first} ${last}`,
      type: 'person',
      observations: [],
      first,
      last,
    };
  }
  function company(r: Random): Base {
    const stem = brand(r);
    const withWord = r.chance(0.4);
    const legal = r.chance(0.35) ? r.pick(LEGAL) : undefined;
    const core = withWord ? `${stem} ${r.pick(COMPANY_WORDS)}` : stem;
    return {
      kind: 'company',
      name: legal ? `${core} ${legal}` : core,
      type: 'organization',
      observations: [],
      stem: core,
      ...(legal ? { legal } : {}),
    };
  }
  function institution(r: Random): Base {
    const name = `${r.pick(INSTITUTION_FIRST)} ${capital(r.pick(SYLLABLES) + r.pick(BRAND_ENDS))} ${r.pick(INSTITUTION_LAST)}`;
    return { kind: 'institution', name, type: 'organization', observations: [] };
  }
  function product(r: Random): Base {
    return {
      kind: 'product',
      name: `${brand(r)} ${r.pick(PRODUCT_WORDS)}`,
      type: 'product',
      observations: [],
    };
  }
  function technology(r: Random): Base {
    let stem = capital(r.pick(SYLLABLES) + r.pick(SYLLABLES) + r.pick(SYLLABLES));
    if (stem.length < 5) stem += r.pick(['on', 'ix', 'ar']);
    const name = r.chance(0.5) ? `${stem}${r.pick(TECH_SHORT_ENDS)}` : stem;
    return { kind: 'technology', name, type: 'technology', observations: [], stem };
  }
  function place(r: Random): Base {
    const name = r.chance(0.25)
      ? `${r.pick(ABBREVIATED_PLACES)[0]} ${r.pick(PLACE_STEMS)}`
      : `${r.pick(PLACE_STEMS)} ${r.pick(PLACE_FEATURES)}`;
    return { kind: 'place', name, type: 'place', observations: [] };
  }
  function town(r: Random): Base {
    return {
      kind: 'town',
      name: capital(r.pick(SYLLABLES) + r.pick(SYLLABLES) + r.pick(TOWN_ENDS)),
      type: 'place',
      observations: [],
    };
  }
}

/** The type a duplicate is given: mostly the original's, sometimes a word for the same kind. */
function synonymType(rng: Random, type: string): string {
  const synonyms: Record<string, string[]> = {
    organization: ['company', 'Organization'],
    person: ['Person', 'people'],
    technology: ['tool', 'Technology'],
    place: ['location', 'Place'],
  };
  return rng.chance(0.15) && synonyms[type] ? rng.pick(synonyms[type]) : type;
}

/** A second way of writing `base`'s name, of `kind`; undefined when the kind does not apply to it. */
function variant(rng: Random, base: Base, kind: PlantedKind): string | undefined {
  const { name } = base;
  switch (kind) {
    case 'case and spacing':
      return rng.pick([
        name.toLowerCase(),
        name.toUpperCase(),
        name.replace(' ', '  '),
        ` ${name.toLowerCase()}`.trim().replace(' ', '   '),
      ]);
    case 'accents': {
      const plain = stripAccents(name);
      return plain !== name ? plain : undefined;
    }
    case 'punctuation':
      if (base.kind === 'technology' && /[a-z][A-Z]{2}$/.test(name)) {
        return rng.pick([
          `${name.slice(0, -2)}.${name.slice(-2).toLowerCase()}`,
          `${name.slice(0, -2)} ${name.slice(-2)}`,
        ]);
      }
      if (name.includes(' ') && base.kind !== 'person')
        return name.replace(' ', rng.pick(['-', '.']));
      return undefined;
    case 'company suffix':
      if (base.kind !== 'company' || !base.stem) return undefined;
      return base.legal
        ? rng.chance(0.5)
          ? base.stem
          : `${base.stem} ${rng.pick(LEGAL.filter((legal) => legal !== base.legal))}`
        : `${base.stem}${rng.pick([' ', ', '])}${rng.pick(LEGAL)}`;
    case 'initials':
      return base.kind === 'person' ? `${base.first![0]}. ${base.last}` : undefined;
    case 'first name only':
      return base.kind === 'person' ? (rng.chance(0.7) ? base.first : base.last) : undefined;
    case 'title':
      return base.kind === 'person'
        ? `${rng.pick(['Dr.', 'Prof.', 'Mr.', 'Ms.', 'Dr'])} ${name}`
        : undefined;
    case 'word order':
      return base.kind === 'person' ? `${base.last}, ${base.first}` : undefined;
    case 'typo':
      return typo(rng, name);
    case 'acronym': {
      if (base.kind !== 'institution') return undefined;
      return name
        .split(' ')
        .map((word) => word[0])
        .join('')
        .toUpperCase();
    }
    case 'shortened':
      if (base.kind !== 'technology' || !base.stem || base.stem === name) return undefined;
      return base.stem;
    case 'abbreviated word': {
      const found = ABBREVIATED_PLACES.find(([long]) => name.startsWith(`${long} `));
      return found ? name.replace(found[0], found[1]) : undefined;
    }
  }
}

/** Two entities that look alike and are two things. */
function negativePair(
  rng: Random,
  kind: NegativeKind,
  ambiguous: [string, string, string][],
): { a: GenEntity; b: GenEntity } | undefined {
  const entity = (name: string, type: string): GenEntity => ({ name, type, observations: [] });
  switch (kind) {
    case 'one shared name part': {
      const first = rng.pick(FIRST);
      const last = rng.pick(LAST);
      return rng.chance(0.5)
        ? {
            a: entity(`${first} ${last}`, 'person'),
            b: entity(`${first} ${rng.pick(LAST)}`, 'person'),
          }
        : {
            a: entity(`${first} ${last}`, 'person'),
            b: entity(`${rng.pick(FIRST)} ${last}`, 'person'),
          };
    }
    case 'one name starts the other': {
      const stem = capital(rng.pick(SYLLABLES) + rng.pick(SYLLABLES));
      return {
        a: entity(stem, 'technology'),
        b: entity(`${stem}${rng.pick(TECH_LONG_ENDS)}`, 'technology'),
      };
    }
    case 'other number': {
      const base = rng.chance(0.5)
        ? `${brand(rng)} ${rng.pick(PRODUCT_WORDS)}`
        : capital(rng.pick(SYLLABLES) + rng.pick(SYLLABLES) + 'on');
      const n = 1 + rng.int(9);
      const form = rng.pick([
        (v: number) => `${base} v${v}`,
        (v: number) => `${base} ${v}`,
        (v: number) => `${base} ${v}.0`,
      ]);
      return { a: entity(form(n), 'product'), b: entity(form(n + 1), 'product') };
    }
    case 'other qualifier': {
      const [x, y] = rng.pick(QUALIFIER_PAIRS);
      const place = `${rng.pick(PLACE_STEMS)} ${rng.pick(PLACE_FEATURES)}`;
      return { a: entity(`${x} ${place}`, 'place'), b: entity(`${y} ${place}`, 'place') };
    }
    case 'one name, two types': {
      const next = ambiguous.pop();
      if (!next) return undefined;
      const [word, typeA, typeB] = next;
      const b = rng.chance(0.5) ? word.toLowerCase() : `${word.toLowerCase()} (${typeB})`;
      return { a: entity(word, typeA), b: entity(b, typeB) };
    }
  }
}
