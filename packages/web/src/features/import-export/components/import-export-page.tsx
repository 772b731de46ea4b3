import { useQueryClient } from '@tanstack/react-query';
import { Download, Upload } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { PendingButton } from '@/components/pending-button';
import { RoleNote } from '@/components/role-note';
import { SettingsLayout } from '@/components/settings-layout';
import { Alert } from '@/components/ui/alert';
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { useCan } from '@/lib/account';
import { errorMessage } from '@/lib/api-client';
import { useSpaceSlug } from '@/lib/space';
import {
  downloadExport,
  uploadImport,
  type ExportFormat,
  type ImportFormat,
  type ImportSummary,
} from '../api/transfer';

const IMPORT_FORMATS: readonly { value: ImportFormat; label: string; accept: string }[] = [
  { value: 'markdown', label: 'Markdown notes (basic-memory, Obsidian) — .zip', accept: '.zip' },
  { value: 'mem0', label: 'mem0 export — .json', accept: '.json' },
  { value: 'jsonl', label: 'Memory server JSONL — .jsonl', accept: '.jsonl,.ndjson,.txt' },
  { value: 'json', label: 'Engram export — .json', accept: '.json' },
];

const EXPORT_BUTTONS: readonly { format: ExportFormat; label: string }[] = [
  { format: 'json', label: 'Export JSON' },
  { format: 'jsonl', label: 'Export JSONL' },
  { format: 'markdown', label: 'Export Markdown (zip)' },
];

type ImportState =
  | { kind: 'idle' }
  | { kind: 'uploading'; progress: number }
  | { kind: 'done'; summary: ImportSummary }
  | { kind: 'failed'; message: string };

/** "Imported 3 entities, 6 observations and 5 relations." */
function summaryText({ entities, observations, relations }: ImportSummary): string {
  return `Imported ${entities} entities, ${observations} observations and ${relations} relations.`;
}

function ImportCard() {
  const space = useSpaceSlug();
  const canWrite = useCan('editGraph');
  const queryClient = useQueryClient();
  const [format, setFormat] = useState<ImportFormat>('markdown');
  const [file, setFile] = useState<File | null>(null);
  const [state, setState] = useState<ImportState>({ kind: 'idle' });
  const formatId = useId();
  const fileId = useId();
  const titleId = useId();
  const uploading = state.kind === 'uploading';
  const accept = IMPORT_FORMATS.find((option) => option.value === format)!.accept;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!file || uploading) return;
    setState({ kind: 'uploading', progress: 0 });
    try {
      const summary = await uploadImport(file, format, space, (progress) =>
        setState((current) => (current.kind === 'uploading' ? { ...current, progress } : current)),
      );
      setState({ kind: 'done', summary });
      // The graph changed: every screen reads it again.
      void queryClient.invalidateQueries();
    } catch (error) {
      setState({
        kind: 'failed',
        message: errorMessage(error, 'The import failed: the server could not be reached.'),
      });
    }
  };

  return (
    <Card role="region" aria-labelledby={titleId}>
      <form noValidate onSubmit={(event) => void submit(event)}>
        <CardHeader>
          <CardTitle id={titleId}>Import</CardTitle>
          <CardDescription>
            Bring memory in from Markdown notes (a zip of a basic-memory folder or an Obsidian
            vault), a mem0 export, the memory server&apos;s JSONL or an Engram export. What the
            space already has is skipped, so importing a file twice adds nothing.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          {!canWrite && (
            <RoleNote testId="import-role-note">
              Your role in this account reads memory only: ask an owner or admin to import.
            </RoleNote>
          )}
          <div className="grid gap-1.5">
            <Label htmlFor={formatId}>Format</Label>
            <NativeSelect
              id={formatId}
              options={IMPORT_FORMATS}
              value={format}
              disabled={uploading || !canWrite}
              onChange={(event) => {
                setFormat(event.target.value as ImportFormat);
                setState({ kind: 'idle' });
              }}
            />
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor={fileId}>File</Label>
            <Input
              id={fileId}
              type="file"
              accept={accept}
              disabled={uploading || !canWrite}
              onChange={(event) => {
                setFile(event.target.files?.[0] ?? null);
                setState({ kind: 'idle' });
              }}
            />
          </div>
          {state.kind === 'uploading' && (
            <div className="grid gap-1.5">
              <progress
                aria-label="Upload progress"
                className="h-2 w-full accent-primary"
                max={1}
                value={state.progress}
              />
              <p className="text-sm text-muted-foreground">
                {state.progress < 1
                  ? `Uploading… ${Math.round(state.progress * 100)}%`
                  : 'Writing into memory…'}
              </p>
            </div>
          )}
          {state.kind === 'done' && <Alert variant="success">{summaryText(state.summary)}</Alert>}
          {state.kind === 'done' && (state.summary.skipped ?? []).length > 0 && (
            <Alert variant="info">
              <p>Left out:</p>
              <ul className="mt-1 list-disc pl-5">
                {state.summary.skipped!.map(({ file, name, reason }, index) => (
                  <li key={index}>
                    {[file, name].filter(Boolean).join(': ')}
                    {file || name ? ' — ' : ''}
                    {reason}
                  </li>
                ))}
              </ul>
            </Alert>
          )}
          {state.kind === 'failed' && <Alert variant="error">{state.message}</Alert>}
        </CardContent>
        <CardFooter className="justify-end">
          <PendingButton
            type="submit"
            pending={uploading}
            disabled={!file || !canWrite}
            icon={<Upload aria-hidden />}
          >
            Import
          </PendingButton>
        </CardFooter>
      </form>
    </Card>
  );
}

function ExportCard() {
  const space = useSpaceSlug();
  const titleId = useId();
  const [pending, setPending] = useState<ExportFormat | null>(null);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);

  const run = async (format: ExportFormat) => {
    setPending(format);
    setResult(null);
    try {
      const name = await downloadExport(format, space);
      setResult({ ok: true, message: `Downloading ${name}` });
    } catch (error) {
      setResult({
        ok: false,
        message: errorMessage(error, 'The export failed: the server could not be reached.'),
      });
    } finally {
      setPending(null);
    }
  };

  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader>
        <CardTitle id={titleId}>Export</CardTitle>
        <CardDescription>
          Download this space&apos;s graph: Engram&apos;s lossless JSON, the memory server&apos;s
          JSONL, or Markdown notes in basic-memory&apos;s format (a zip that also opens as an
          Obsidian vault).
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="flex flex-wrap gap-2">
          {EXPORT_BUTTONS.map(({ format, label }) => (
            <PendingButton
              key={format}
              variant="outline"
              pending={pending === format}
              disabled={pending !== null}
              icon={<Download aria-hidden />}
              onClick={() => void run(format)}
            >
              {label}
            </PendingButton>
          ))}
        </div>
        {result && <Alert variant={result.ok ? 'success' : 'error'}>{result.message}</Alert>}
      </CardContent>
    </Card>
  );
}

/** Settings → Import/Export (/settings/import-export): memory in and out of the shown space. */
export function ImportExportPage() {
  return (
    <SettingsLayout section="Import/Export">
      <ImportCard />
      <ExportCard />
    </SettingsLayout>
  );
}
