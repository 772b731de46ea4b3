import { ACCOUNT_HEADER, SPACE_HEADER, type ErrorBody } from '@engram/shared';
import { readAccountId } from '@/lib/account';
import { apiRequest, ApiError } from '@/lib/api-client';
import { readAuthToken } from '@/lib/auth-token';
import { CLIENT_ID_HEADER, TAB_CLIENT_ID } from '@/lib/client-id';
import { saveFile } from '@/lib/export-graph';

export type ImportFormat = 'markdown' | 'mem0' | 'jsonl' | 'json';
export type ExportFormat = 'json' | 'jsonl' | 'markdown';

/** What POST /api/import wrote. */
export interface ImportSummary {
  entities: number;
  relations: number;
  observations: number;
  /** What the import left out and why (an alias another entity has, say). */
  skipped?: { file?: string; name?: string; reason: string }[];
}

/** The body type each format is sent as. */
const CONTENT_TYPE: Record<ImportFormat, string> = {
  markdown: 'application/zip',
  mem0: 'application/json',
  jsonl: 'application/x-ndjson',
  json: 'application/json',
};

/** The headers every call of the app carries (api-client.ts): the session, account and space. */
function headersFor(space: string): Record<string, string> {
  const headers: Record<string, string> = {
    [CLIENT_ID_HEADER]: TAB_CLIENT_ID,
    [SPACE_HEADER]: space,
  };
  const token = readAuthToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const accountId = readAccountId();
  if (accountId) headers[ACCOUNT_HEADER] = accountId;
  return headers;
}

function errorBodyOf(text: string): ErrorBody | null {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody> | null;
    return body && typeof body.error === 'string' ? (body as ErrorBody) : null;
  } catch {
    return null;
  }
}

/**
 * POST /api/import?format= with the file as the body, by XMLHttpRequest so
 * the upload's progress shows (`onProgress` with 0…1). Rejects with an
 * ApiError (the server's message and failing field) or a network failure.
 */
export function uploadImport(
  file: Blob,
  format: ImportFormat,
  space: string,
  onProgress: (fraction: number) => void,
): Promise<ImportSummary> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `/api/import?format=${format}`);
    for (const [name, value] of Object.entries(headersFor(space))) {
      request.setRequestHeader(name, value);
    }
    request.setRequestHeader('Content-Type', CONTENT_TYPE[format]);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    request.onerror = () => reject(new ApiError(0, null, 'Could not reach the server'));
    request.onload = () => {
      const text = typeof request.responseText === 'string' ? request.responseText : '';
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        try {
          resolve(JSON.parse(text) as ImportSummary);
        } catch {
          reject(new ApiError(request.status, null, 'The server sent an unreadable answer'));
        }
        return;
      }
      // A 401 signs out (docs/product.md, States): the one API client does that, so let it see one.
      if (request.status === 401) void apiRequest('/auth/me').catch(() => undefined);
      const body = errorBodyOf(text);
      const message =
        request.status === 413
          ? 'The file is larger than the server accepts in one upload'
          : `Request failed with status ${request.status}`;
      reject(new ApiError(request.status, body, body?.error ?? message));
    };
    request.send(file);
  });
}

/** The file name the server gives the download, or one of the same shape. */
function fileNameOf(response: Response, format: ExportFormat): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename="([^"]+)"/.exec(disposition);
  const ext = format === 'markdown' ? 'zip' : format;
  return match?.[1] ?? `engram-export-${new Date().toISOString().slice(0, 10)}.${ext}`;
}

/**
 * GET /api/export?format= → the space's graph, saved by the browser as a file
 * (fetched with the bearer token, which a plain link cannot carry).
 */
export async function downloadExport(format: ExportFormat, space: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`/api/export?format=${format}`, { headers: headersFor(space) });
  } catch {
    throw new ApiError(0, null, 'Could not reach the server');
  }
  if (!response.ok) {
    if (response.status === 401) await apiRequest('/auth/me').catch(() => undefined);
    const body = errorBodyOf(await response.text().catch(() => ''));
    throw new ApiError(
      response.status,
      body,
      body?.error ?? `Request failed with status ${response.status}`,
    );
  }
  const name = fileNameOf(response, format);
  saveFile(await response.blob(), name);
  return name;
}
