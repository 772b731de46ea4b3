import { SPACE_HEADER } from '@engram/shared';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, ApiError } from '@/lib/api-client';
import { readAuthToken } from '@/lib/auth-token';
import { useSpaceSlug } from '@/lib/space';

/** The file name the server gives the download, or one of the same shape. */
function fileNameOf(response: Response): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename="([^"]+)"/.exec(disposition);
  return match?.[1] ?? `engram-export-${new Date().toISOString().slice(0, 10)}.json`;
}

/**
 * GET /api/export → one space's whole graph as Engram's lossless JSON,
 * saved by the browser as a file (the dashboard, and Settings before an account
 * is deleted). Fetched with the bearer token (a plain link
 * cannot carry it), then handed to the browser as a download.
 */
export async function exportGraph(space: string): Promise<string> {
  const token = readAuthToken();
  let response: Response;
  try {
    response = await fetch('/api/export', {
      headers: {
        Accept: 'application/json',
        [SPACE_HEADER]: space,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
    });
  } catch {
    throw new ApiError(0, null, 'Could not reach the server');
  }
  if (!response.ok) {
    // A 401 signs out (docs/product.md, States): the one API client does that, so let it see one.
    if (response.status === 401) await apiRequest('/auth/me').catch(() => undefined);
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new ApiError(
      response.status,
      null,
      body?.error ?? `Request failed with status ${response.status}`,
    );
  }
  const name = fileNameOf(response);
  saveFile(await response.blob(), name);
  return name;
}

/** Hands `blob` to the browser as a download named `name`. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.rel = 'noopener';
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // Give the browser a moment to start the download before the URL goes.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** Exports the shown space. */
export function useExportGraph() {
  const space = useSpaceSlug();
  return useMutation({ mutationFn: () => exportGraph(space) });
}
