import './view.css';
import type { Entity, HistoryChange, HistoryPage } from '@engram/shared';
import { typeLabel } from '@engram/shared';
import { ask, fill, gate, h, notice, typeChip, when } from './dom';
import { startView, truncationOf, type Access, type ToolAnswer } from './host';

/*
 * ui://engram/entity: what open_nodes answered. One entity is shown at once
 * (several: a list to pick from), with its relations as links opened in the
 * same view and its recent history, each change with Undo.
 */

interface Opened {
  entities?: { name: string; entityType: string; observations: string[] }[];
}
interface Details {
  entity: Entity;
  relations: { from: string; to: string; relationType: string }[];
  truncated?: string;
}

const HISTORY_SHOWN = 10;
const main = document.getElementById('view')!;
/** The entities opened, the one shown last; Back returns to the one before (or the list). */
const trail: string[] = [];
let picked: Opened['entities'] = [];
let cut: string | undefined;

const view = startView('Engram entity', { onResult: (answer) => show(answer) });

function show(answer: ToolAnswer): void {
  main.removeAttribute('aria-busy');
  if (answer.isError) {
    fill(main);
    notice(main, 'The tool failed; nothing to show.', 'error');
    return;
  }
  picked = (answer.structuredContent as Opened | undefined)?.entities ?? [];
  cut = truncationOf(answer);
  trail.length = 0;
  if (picked.length === 1) void open(picked[0]!.name);
  else showList();
}

function showList(): void {
  fill(
    main,
    h('h1', {}, picked!.length ? `${picked!.length} entities` : 'No entity found'),
    h(
      'ul',
      { class: 'list' },
      ...picked!.map((entity) =>
        h(
          'li',
          { class: 'row spread' },
          h('button', { class: 'link', onclick: () => void open(entity.name) }, entity.name),
          h(
            'span',
            { class: 'row' },
            typeChip(entity.entityType),
            h('span', { class: 'muted' }, `${entity.observations.length} obs.`),
          ),
        ),
      ),
    ),
  );
  notice(main, cut);
}

const changeLabels: Record<HistoryChange['type'], string> = {
  entity_created: 'Created',
  entity_updated: 'Changed',
  entity_deleted: 'Deleted',
  observation_added: 'Observation added',
  relation_created: 'Relation added',
  relation_updated: 'Relation changed',
  relation_deleted: 'Relation removed',
  entity_merged: 'Merged',
};

/** One line saying what a change did. */
function summary(change: HistoryChange): string {
  const version = change.after ?? change.before;
  if (!version) return '';
  if (version.kind === 'relation')
    return `${version.fromEntityName ?? '?'} → ${typeLabel(version.relationType)} → ${version.toEntityName ?? '?'}`;
  if (change.type === 'observation_added' && change.after?.kind === 'entity') {
    const before = new Set(
      change.before?.kind === 'entity' ? change.before.observations.map((o) => o.content) : [],
    );
    const added = change.after.observations.filter((o) => !before.has(o.content));
    return added.map((o) => `“${o.content}”`).join(', ');
  }
  if (change.before?.kind === 'entity' && change.after?.kind === 'entity') {
    if (change.before.name !== change.after.name)
      return `${change.before.name} → ${change.after.name}`;
    if (change.before.type !== change.after.type)
      return `type ${change.before.type} → ${change.after.type}`;
  }
  return version.name;
}

async function undo(change: HistoryChange, name: string): Promise<void> {
  const sure = await ask(
    'Undo this change?',
    `Everything the call made at ${when(change.at)} is put back as it was (${changeLabels[change.type].toLowerCase()}). The undo is itself recorded as a change.`,
    'Undo',
  );
  if (!sure) return;
  try {
    const answer = await view.call<{ reverted: { changes: number } }>('revert_change', {
      seq: change.seq,
    });
    await open(name, { replace: true });
    notice(
      main,
      `Undone: ${answer.reverted.changes} ${answer.reverted.changes === 1 ? 'change' : 'changes'} put back.`,
    );
  } catch (error) {
    notice(main, (error as Error).message, 'error');
  }
}

function historyList(page: HistoryPage, name: string, access: Access): HTMLElement {
  if (page.changes.length === 0) return h('p', { class: 'muted' }, 'No changes kept.');
  return h(
    'ul',
    { class: 'list' },
    ...page.changes
      .slice(0, HISTORY_SHOWN)
      .map((change) =>
        h(
          'li',
          { class: 'row spread' },
          h(
            'span',
            { class: 'change' },
            h('strong', {}, changeLabels[change.type]),
            ' ',
            summary(change),
            h(
              'span',
              { class: 'muted' },
              ` · ${when(change.at)}${change.actor?.name ? ` · ${change.actor.name}` : ''}`,
            ),
          ),
          gate(h('button', { onclick: () => void undo(change, name) }, 'Undo'), access),
        ),
      ),
  );
}

function relationList(details: Details): HTMLElement {
  const { entity, relations } = details;
  if (relations.length === 0) return h('p', { class: 'muted' }, 'None.');
  return h(
    'ul',
    { class: 'list' },
    ...relations.map((relation) => {
      const outgoing = relation.from === entity.name;
      const other = outgoing ? relation.to : relation.from;
      const link = h('button', { class: 'link', onclick: () => void open(other) }, other);
      const type = h('span', { class: 'muted' }, typeLabel(relation.relationType));
      return outgoing
        ? h('li', {}, '→ ', type, ' → ', link)
        : h('li', {}, link, ' → ', type, ' → ', h('span', { class: 'muted' }, 'this'));
    }),
  );
}

function metadataList(metadata: Record<string, unknown>): HTMLElement | null {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return null;
  return h(
    'dl',
    { class: 'kv' },
    ...entries.flatMap(([key, value]) => [
      h('dt', {}, key),
      h('dd', {}, typeof value === 'string' ? value : JSON.stringify(value)),
    ]),
  );
}

/** Shows one entity, read fresh through the host. */
async function open(name: string, { replace = false } = {}): Promise<void> {
  if (!replace) trail.push(name);
  main.setAttribute('aria-busy', 'true');
  let details: Details;
  let history: HistoryPage | undefined;
  let historyError: string | undefined;
  try {
    const [found, page, access] = await Promise.all([
      view.call<Details>('entity_details', { name }),
      view
        .call<HistoryPage>('entity_history', { name, limit: HISTORY_SHOWN })
        .catch((error: Error) => {
          historyError = error.message;
          return undefined;
        }),
      view.writeAccess(),
    ]);
    details = found;
    history = page;
    render(details, history, historyError, access);
  } catch (error) {
    if (!replace) trail.pop();
    notice(main, (error as Error).message, 'error');
  } finally {
    main.removeAttribute('aria-busy');
  }
}

function render(
  details: Details,
  history: HistoryPage | undefined,
  historyError: string | undefined,
  access: Access,
): void {
  const { entity } = details;
  const back =
    trail.length > 1 || (picked?.length ?? 0) > 1
      ? h(
          'button',
          {
            onclick: () => {
              trail.pop();
              const previous = trail.pop();
              if (previous) void open(previous);
              else showList();
            },
          },
          '← Back',
        )
      : null;
  fill(
    main,
    h('div', { class: 'row' }, back, h('h1', {}, entity.name), typeChip(entity.type)),
    entity.aliases.length
      ? h('p', { class: 'muted' }, `Also known as ${entity.aliases.join(', ')}`)
      : null,
    metadataList(entity.metadata),
    h('h2', {}, `Observations (${entity.observationsCount})`),
    entity.observations.length
      ? h(
          'ul',
          { class: 'list' },
          ...entity.observations.map((observation) =>
            h(
              'li',
              {},
              observation.content,
              h('span', { class: 'muted' }, ` · ${when(observation.createdAt)}`),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'None.'),
    entity.observationsTruncated
      ? h(
          'p',
          { class: 'muted' },
          `Showing ${entity.observations.length}: the read limits cut the rest.`,
        )
      : null,
    h('h2', {}, `Relations (${details.relations.length})`),
    relationList(details),
    h('h2', {}, 'Recent history'),
    history
      ? historyList(history, entity.name, access)
      : h('p', { class: 'muted' }, historyError ?? 'Unavailable.'),
    access.canWrite
      ? null
      : h('p', { class: 'muted' }, `Undo is off: ${access.reason ?? 'read only'}.`),
  );
  notice(main, details.truncated ?? (trail.length === 1 ? cut : undefined));
}
