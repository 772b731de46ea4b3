import './view.css';
import './duplicates.css';
import type { DuplicateCandidate, DuplicateEntity, DuplicateList, Entity } from '@engram/shared';
import { ask, fill, gate, h, notice, typeChip } from './dom';
import { startView, truncationOf, type Access, type ToolAnswer } from './host';

/*
 * ui://engram/duplicates: what find_duplicates answered, each pair side by
 * side with Merge (into either) and Not the same, and Undo after a merge.
 */

/** Pairs whose observations are read to compare them (each is one call). */
const COMPARED = 20;
const main = document.getElementById('view')!;
const list = h('ul', { class: 'pairs' });

const view = startView('Engram duplicates', { onResult: (answer) => void show(answer) });

async function show(answer: ToolAnswer): Promise<void> {
  main.removeAttribute('aria-busy');
  if (answer.isError) {
    notice(main, 'The tool failed; nothing to show.', 'error');
    return;
  }
  const page = (answer.structuredContent ?? { candidates: [] }) as DuplicateList;
  const access = await view.writeAccess();
  fill(
    main,
    h(
      'div',
      { class: 'row spread' },
      h('h1', {}, page.candidates.length ? 'Possible duplicates' : 'No likely duplicates'),
      h(
        'span',
        { class: 'muted' },
        `${page.candidates.length} ${page.candidates.length === 1 ? 'pair' : 'pairs, best first'}`,
      ),
    ),
    access.canWrite
      ? null
      : h('p', { class: 'muted' }, `Merging is off: ${access.reason ?? 'read only'}.`),
    list,
  );
  list.replaceChildren(...page.candidates.map((pair, i) => pairItem(pair, access, i < COMPARED)));
  const notes = [
    truncationOf(answer),
    page.upToDate === false ? 'Recent changes are still being compared: pairs may be missing.' : '',
  ].filter(Boolean);
  notice(main, notes.join(' ') || undefined);
}

function side(entity: DuplicateEntity, compare: boolean): HTMLElement {
  const observations = h('ul', { class: 'list observations' });
  const card = h(
    'div',
    { class: 'card' },
    h('h2', { class: 'name' }, entity.name),
    h(
      'p',
      { class: 'row' },
      typeChip(entity.type),
      h(
        'span',
        { class: 'muted' },
        `${entity.observationsCount} obs. · ${entity.relationsCount} rel.`,
      ),
    ),
    observations,
  );
  if (compare && entity.observationsCount > 0) {
    view
      .call<{ entity: Entity }>('entity_details', { name: entity.name })
      .then(({ entity: full }) => {
        fill(
          observations,
          ...full.observations.slice(0, 4).map((o) => h('li', {}, o.content)),
          full.observations.length > 4
            ? h('li', { class: 'muted' }, `and ${full.observationsCount - 4} more`)
            : null,
        );
      })
      .catch(() => undefined);
  }
  return card;
}

function pairItem(pair: DuplicateCandidate, access: Access, compare: boolean): HTMLElement {
  const [a, b] = pair.entities as [DuplicateEntity, DuplicateEntity];
  const item = h('li', { class: 'pair' });
  const status = h('div', { class: 'status', role: 'status' });
  const actions = h(
    'div',
    { class: 'row actions' },
    gate(
      h('button', { onclick: () => void merge(item, status, b, a) }, `Merge into “${a.name}”`),
      access,
    ),
    gate(
      h('button', { onclick: () => void merge(item, status, a, b) }, `Merge into “${b.name}”`),
      access,
    ),
    gate(h('button', { onclick: () => void dismiss(item, status, a, b) }, 'Not the same'), access),
  );
  item.append(
    h(
      'p',
      { class: 'why' },
      h('strong', {}, `${Math.round(pair.score * 100)}%`),
      ' ',
      h('span', { class: 'muted' }, pair.reasons.join(' · ')),
    ),
    h('div', { class: 'sides' }, side(a, compare), side(b, compare)),
    actions,
    status,
  );
  return item;
}

async function merge(
  item: HTMLElement,
  status: HTMLElement,
  source: DuplicateEntity,
  target: DuplicateEntity,
): Promise<void> {
  const sure = await ask(
    `Merge “${source.name}” into “${target.name}”?`,
    `Its ${source.observationsCount} observations and ${source.relationsCount} relations move to “${target.name}”, its name becomes an alias, and “${source.name}” is removed. You can undo it.`,
    'Merge',
  );
  if (!sure) return;
  try {
    const answer = await view.call<{ callSeq: number; entity: { name: string } }>(
      'merge_entities',
      { target: target.name, sources: [source.name] },
    );
    item.classList.add('done');
    const undo = h('button', {}, 'Undo');
    undo.addEventListener('click', () => void undoMerge(item, status, answer.callSeq));
    status.replaceChildren(h('span', {}, `Merged into “${answer.entity.name}”. `), undo);
  } catch (error) {
    status.replaceChildren(h('span', { class: 'error-text' }, (error as Error).message));
  }
}

async function undoMerge(item: HTMLElement, status: HTMLElement, seq: number): Promise<void> {
  const sure = await ask(
    'Undo the merge?',
    'Both entities come back as they were before it, with their observations and relations.',
    'Undo',
  );
  if (!sure) return;
  try {
    await view.call('revert_change', { seq });
    item.classList.remove('done');
    status.replaceChildren(h('span', {}, 'Merge undone.'));
  } catch (error) {
    status.replaceChildren(h('span', { class: 'error-text' }, (error as Error).message));
  }
}

async function dismiss(
  item: HTMLElement,
  status: HTMLElement,
  a: DuplicateEntity,
  b: DuplicateEntity,
): Promise<void> {
  const sure = await ask(
    'Not the same thing?',
    `“${a.name}” and “${b.name}” will not be proposed as duplicates again, until one of them is renamed.`,
    'Not the same',
  );
  if (!sure) return;
  try {
    await view.call('dismiss_duplicate', { entityIds: [a.id, b.id] });
    item.classList.add('done');
    status.replaceChildren(h('span', {}, 'Marked as not the same.'));
  } catch (error) {
    status.replaceChildren(h('span', { class: 'error-text' }, (error as Error).message));
  }
}
