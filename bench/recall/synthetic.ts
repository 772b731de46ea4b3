/**
 * Filler memories for the latency mode: sentences whose words follow a
 * Zipf-like law (rank^-1.05 over ~30,000 words: English function and common
 * words first, then made-up words from syllables), some with a person's name
 * or a date, on entities of ~50 observations. Seeded: every run stores the
 * same text.
 */
export interface SyntheticEntity {
  name: string;
  entityType: string;
  observations: string[];
}

/** A small fast seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = `the of and to a in is that for it was on with he as you at be this have from or
  had by not but what all were when we there can an your which their said if will each about how up
  out them then she many some so these would other into has more her two like him see time could
  no make than first been its who now people my made over did down only way find use may water
  long little very after words called just where most know get through back much go good new
  write our me man too any day same right look think also around another came come work three
  must because does part even place well such here take why help put different away again off
  went old number great tell men say small every found still between name should home big give
  air line set own under read last never us left end along while might next sound below saw
  something thought both few those always show large often together asked house world going want
  school important until form food keep children feet land side without boy once animal life
  enough took four head above kind began almost live page got earth need far hand high year mother
  light country father let night picture being study second soon story since white ever paper
  hard near sentence better best across during today however sure knew try told young sun thing
  whole hear example heard several change answer room sea against top turned learn point city play
  toward five himself usually money seen car morning body upon family later move face door cut
  done group true leave color red friends easy music meeting project team client report budget
  office weekend trip garden coffee dinner lunch book movie game class doctor hospital flight
  train bike dog cat kids parents sister brother wife husband birthday party wedding job manager
  email phone laptop server database release deadline design review plan vacation beach mountain
  river lake park museum concert recipe kitchen apartment rent neighbor market store holiday`
  .split(/\s+/)
  .filter(Boolean);

const SYLLABLES = `ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge go ha he hi ho ka
  ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po ra re ri ro ru sa se si so su
  ta te ti to tu va ve vi vo za ze zo bar ber con dor fen gal len mar nor par ren san tor ver wen`
  .split(/\s+/)
  .filter(Boolean);

const FIRST = `Adele Amir Anton Aria Arthur Astrid Beatrix Bruno Caleb Camille Cyrus Dalia Dario
  Delphine Edgar Elodie Emil Esme Felix Fiona Gideon Greta Hugo Ilse Ivan Jasper Jonah Juno Kasimir
  Klara Lars Lena Linus Lorenzo Magnus Malin Mateo Mirela Nadia Nils Odette Oskar Paloma Quentin
  Rafael Rosa Rufus Selma Silas Soren Tamsin Teodor Thea Ulrich Vera Viggo Wanda Xavier Yara Zelda`
  .split(/\s+/)
  .filter(Boolean);

const LAST = `Abbott Ahlberg Barros Bergstrom Calloway Castellanos Dimitrov Draper Eklund Falk
  Ferreira Gallagher Grimaldi Halvorsen Hartigan Ibsen Jankowski Kalnins Kowalczyk Lindqvist
  Marchetti Mendoza Novak Okonkwo Oyelaran Pavlenko Quist Rasmussen Salazar Sandoval Thornbury
  Underhill Varga Vasquez Whitlock Yamazaki Zielinski Brannigan Costa Delacroix Fairweather Holm`
  .split(/\s+/)
  .filter(Boolean);

const MONTHS =
  `January February March April May June July August September October November December`.split(
    ' ',
  );

const TYPES = ['person', 'person', 'person', 'project', 'company', 'place', 'tool'];

export function vocabulary(size = 30_000, random = rng(7)): string[] {
  const words = [...new Set(COMMON)];
  const seen = new Set(words);
  while (words.length < size) {
    const parts = 2 + Math.floor(random() * 2);
    let word = '';
    for (let i = 0; i < parts; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

/** Draws ranks with probability ∝ rank^-s. */
function zipfSampler(size: number, s: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / Math.pow(rank + 1, s);
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/**
 * `count` observations on entities of `perEntity` each, generated lazily in
 * batches of whole entities. Names whose first word is in `avoid` (the set's
 * people) are never used, so the filler does not name them.
 */
export function* syntheticEntities(
  count: number,
  perEntity: number,
  avoid: Set<string>,
  seed = 42,
): Generator<SyntheticEntity> {
  const random = rng(seed);
  const words = vocabulary();
  const next = zipfSampler(words.length, 1.05, random);
  const first = FIRST.filter((name) => !avoid.has(name.toLowerCase()));
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const names = new Set<string>();
  const sentence = () => {
    const length = 6 + Math.floor(random() * 14);
    const tokens: string[] = [];
    for (let i = 0; i < length; i++) tokens.push(words[next()]!);
    if (random() < 0.3) tokens.splice(Math.floor(random() * tokens.length), 0, pick(first));
    if (random() < 0.15) {
      tokens.push(
        'on',
        String(1 + Math.floor(random() * 28)),
        pick(MONTHS),
        String(2019 + Math.floor(random() * 6)),
      );
    }
    const text = tokens.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  for (let made = 0; made < count;) {
    let name = `${pick(first)} ${pick(LAST)}`;
    for (let n = 2; names.has(name); n++) name = `${name.replace(/ \d+$/, '')} ${n}`;
    names.add(name);
    const size = Math.min(perEntity, count - made);
    const observations = new Set<string>();
    while (observations.size < size) observations.add(sentence());
    made += size;
    yield { name, entityType: pick(TYPES), observations: [...observations] };
  }
}
