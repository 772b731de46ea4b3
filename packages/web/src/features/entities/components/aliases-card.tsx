import type { Entity } from '@engram/shared';
import { Plus, X } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Panel } from '@/components/graph-canvas';
import { PendingButton } from '@/components/pending-button';
import { Input } from '@/components/ui/input';
import { useCan } from '@/lib/account';
import { useUpdateEntity } from '../api/update-entity';
import { addAlias, removeAlias } from '../alias-rules';
import { serverReason } from '../display';

/**
 * The entity's aliases on its page (issue 59): other names it goes by (a
 * merge's sources' names, or given here), each found by name wherever a name
 * is asked for. Adding or removing one saves the list at once (PUT with the
 * current name and type); the server's refusal (409: another entity's name
 * or alias) shows under the field. A viewer reads the list only.
 */
export function AliasesCard({ entity, className }: { entity: Entity; className?: string }) {
  const canEdit = useCan('editGraph');
  const update = useUpdateEntity();
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // What the pending save does: which alias goes, or that one is added.
  const [saving, setSaving] = useState<{ removing: string | null } | null>(null);
  const inputId = useId();
  const problemId = `${inputId}-problem`;

  function save(aliases: string[], removing: string | null, onSaved?: () => void) {
    setProblem(null);
    setSaving({ removing });
    update.mutate(
      { id: entity.id, input: { name: entity.name, type: entity.type, aliases } },
      {
        onSuccess: () => onSaved?.(),
        onError: (error) => setProblem(serverReason(error) ?? 'Failed to save the aliases'),
        onSettled: () => setSaving(null),
      },
    );
  }

  function add(event: FormEvent) {
    event.preventDefault();
    const check = addAlias(entity, draft);
    if (!check.ok) {
      setProblem(check.message);
      return;
    }
    save(check.aliases, null, () => setDraft(''));
  }

  const busy = saving !== null;
  return (
    <Panel title="Aliases" className={className}>
      <div className="grid gap-3">
        {entity.aliases.length > 0 ? (
          <ul className="flex flex-wrap gap-1.5" aria-label="Aliases">
            {entity.aliases.map((alias) => (
              <li
                key={alias}
                className="inline-flex max-w-full min-w-0 items-center gap-0.5 rounded-md border border-border bg-muted py-0.5 pr-0.5 pl-2 text-xs"
              >
                <span className="min-w-0 wrap-anywhere">{alias}</span>
                {canEdit ? (
                  <button
                    type="button"
                    aria-label={`Remove alias ${alias}`}
                    disabled={busy}
                    onClick={() => save(removeAlias(entity, alias), alias)}
                    className="flex size-5 shrink-0 cursor-pointer items-center justify-center rounded text-muted-foreground outline-none hover:bg-border hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring disabled:cursor-default disabled:opacity-50"
                  >
                    <X
                      className={saving?.removing === alias ? 'size-3 animate-pulse' : 'size-3'}
                      aria-hidden
                    />
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-muted-foreground">
            {canEdit
              ? 'Other names it goes by; searches and agents find it by them too.'
              : 'No aliases'}
          </p>
        )}

        {canEdit ? (
          <form onSubmit={add} className="grid gap-1.5" aria-label="Add alias">
            <label htmlFor={inputId} className="sr-only">
              New alias
            </label>
            <div className="flex gap-2">
              <Input
                id={inputId}
                value={draft}
                placeholder="Add an alias"
                className="h-8"
                aria-invalid={problem !== null || undefined}
                aria-describedby={problem ? problemId : undefined}
                onChange={(event) => {
                  setDraft(event.target.value);
                  setProblem(null);
                }}
              />
              <PendingButton
                type="submit"
                variant="outline"
                size="sm"
                pending={busy && saving?.removing === null}
                disabled={busy}
                icon={<Plus aria-hidden />}
              >
                Add
              </PendingButton>
            </div>
            {problem ? (
              <p id={problemId} role="alert" className="text-xs text-destructive wrap-anywhere">
                {problem}
              </p>
            ) : null}
          </form>
        ) : null}
      </div>
    </Panel>
  );
}
