import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, testUserAs } from '@/test/fake-server';
import { renderApp } from '@/test/render-app';

/**
 * Stands in for XMLHttpRequest (the upload, for its progress): records what
 * was sent, then — when the test says — reports progress and answers.
 */
class FakeXhr {
  static last: FakeXhr | undefined;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown;
  status = 0;
  responseText = '';
  upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;

  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  send(body: unknown) {
    this.body = body;
    FakeXhr.last = this;
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total } as ProgressEvent);
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

function signedIn(
  user: typeof TEST_USER | ReturnType<typeof testUserAs> = TEST_USER,
  more: Parameters<typeof fakeServer>[0] = {},
) {
  localStorage.setItem('auth_token', 'valid-token');
  return fakeServer({ 'GET /auth/me': () => ({ status: 200, body: user }), ...more });
}

async function open() {
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  FakeXhr.last = undefined;
  const user = userEvent.setup({ delay: null });
  const app = renderApp('/settings/import-export');
  const card = await screen.findByRole('region', { name: 'Import' }, { timeout: 5000 });
  return { user, app, card };
}

afterEach(() => vi.unstubAllGlobals());

describe('Settings → Import/Export', { timeout: 20_000 }, () => {
  it('is a Settings section, linked from its tabs', async () => {
    signedIn();
    const { app } = await open();
    const tabs = screen.getByRole('navigation', { name: 'Settings sections' });
    const link = within(tabs).getByRole('link', { name: 'Import/Export' });
    expect(link).toHaveAttribute('aria-current', 'page');
    expect(app.router.state.location.pathname).toBe('/settings/import-export');
    expect(screen.getByRole('region', { name: 'Export' })).toBeInTheDocument();
  });

  it('uploads the chosen file in the chosen format with progress, then shows the counts', async () => {
    signedIn();
    const { user, card } = await open();
    const button = within(card).getByRole('button', { name: 'Import' });
    expect(button).toBeDisabled();
    await user.selectOptions(within(card).getByLabelText('Format'), 'mem0');
    const file = new File(['{"results":[]}'], 'mem0.json', { type: 'application/json' });
    await user.upload(within(card).getByLabelText('File'), file);
    await user.click(button);

    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/import?format=mem0');
    expect(xhr.headers['content-type']).toBe('application/json');
    expect(xhr.headers.authorization).toBe('Bearer valid-token');
    expect(xhr.headers['x-engram-space']).toBe('default');
    expect(xhr.body).toBe(file);

    xhr.progress(40, 100);
    const progress = await within(card).findByRole('progressbar', { name: 'Upload progress' });
    await waitFor(() => expect(progress).toHaveAttribute('value', '0.4'));
    expect(within(card).getByText('Uploading… 40%')).toBeInTheDocument();

    xhr.answer(200, { entities: 3, relations: 0, observations: 4 });
    expect(
      await within(card).findByText('Imported 3 entities, 4 observations and 0 relations.'),
    ).toBeInTheDocument();
    expect(within(card).queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('lists what the import left out, with the note and the reason', async () => {
    signedIn();
    const { user, card } = await open();
    await user.upload(
      within(card).getByLabelText('File'),
      new File(['PK'], 'vault.zip', { type: 'application/zip' }),
    );
    await user.click(within(card).getByRole('button', { name: 'Import' }));
    FakeXhr.last!.answer(200, {
      entities: 2,
      relations: 0,
      observations: 0,
      skipped: [
        {
          file: 'people/byron.md',
          name: 'Ada Byron',
          reason: 'the alias "Ada" is an alias of "Ada Lovelace" in this import',
        },
      ],
    });
    expect(await within(card).findByText('Left out:')).toBeInTheDocument();
    expect(
      within(card).getByText(
        'people/byron.md: Ada Byron — the alias "Ada" is an alias of "Ada Lovelace" in this import',
      ),
    ).toBeInTheDocument();
  });

  it("shows the server's error, naming what is wrong", async () => {
    signedIn();
    const { user, card } = await open();
    await user.upload(
      within(card).getByLabelText('File'),
      new File(['PK'], 'vault.zip', { type: 'application/zip' }),
    );
    await user.click(within(card).getByRole('button', { name: 'Import' }));
    const xhr = FakeXhr.last!;
    expect(xhr.url).toBe('/api/import?format=markdown');
    expect(xhr.headers['content-type']).toBe('application/zip');
    xhr.answer(400, {
      error: 'The zip holds more than 10000 files',
      code: 'VALIDATION_ERROR',
      details: [{ field: 'body', message: 'The zip holds more than 10000 files' }],
    });
    expect(await within(card).findByRole('alert')).toHaveTextContent(
      'The zip holds more than 10000 files',
    );
  });

  it('offers no import to a viewer, who may still export', async () => {
    signedIn(testUserAs('viewer'));
    const { card } = await open();
    expect(await within(card).findByTestId('import-role-note')).toBeInTheDocument();
    expect(within(card).getByLabelText('File')).toBeDisabled();
    expect(within(card).getByRole('button', { name: 'Import' })).toBeDisabled();
    const exports = screen.getByRole('region', { name: 'Export' });
    expect(within(exports).getByRole('button', { name: 'Export Markdown (zip)' })).toBeEnabled();
  });

  it('downloads each export format', async () => {
    const { requests } = signedIn(TEST_USER, {
      'GET /api/export': (request) =>
        request.query.get('format') === 'jsonl'
          ? { status: 429, body: { error: 'An export is already running', code: 'RATE_LIMITED' } }
          : { status: 200, body: { format: 'engram' } },
    });
    const created = vi.fn(() => 'blob:export');
    vi.stubGlobal(
      'URL',
      Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }),
    );
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const { user } = await open();
    const exports = screen.getByRole('region', { name: 'Export' });
    const day = new Date().toISOString().slice(0, 10);
    for (const [label, format, shown] of [
      ['Export JSON', 'json', `Downloading engram-export-${day}.json`],
      ['Export JSONL', 'jsonl', 'An export is already running'],
      ['Export Markdown (zip)', 'markdown', `Downloading engram-export-${day}.zip`],
    ] as const) {
      await user.click(within(exports).getByRole('button', { name: label }));
      await waitFor(() =>
        expect(
          within(exports).getByRole(format === 'jsonl' ? 'alert' : 'status'),
        ).toHaveTextContent(shown),
      );
      const sent = requests.filter((r) => r.path === '/api/export').at(-1)!;
      expect(sent.query.get('format')).toBe(format);
      expect(sent.headers.get('x-engram-space')).toBe('default');
    }
    expect(click).toHaveBeenCalledTimes(2);
    click.mockRestore();
  });
});
