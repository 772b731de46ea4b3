import type { RecallResult } from '@engram/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeServer, TEST_USER, type FakeRequest } from '@/test/fake-server';
import { typePages } from '@/test/fake-type-pages';
import { renderApp } from '@/test/render-app';
import { presetSince } from '../time-filter';

beforeAll(() => {
  // jsdom lacks what Radix's popper measures with.
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => undefined;
  Element.prototype.scrollIntoView ??= () => undefined;
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});

function result(overrides: Partial<RecallResult> = {}): RecallResult {
  return {
    observation: 'Maya started her new job at Acme in March 2026',
    observationId: 'o1',
    entityName: 'Maya',
    entityType: 'person',
    entityId: 'e1',
    createdAt: '2027-01-05T10:00:00.000Z',
    score: 0.9,
    ...overrides,
  };
}

const MAYA_JOB = result();
const MAYA_TEA = result({
  observation: 'Prefers green tea to coffee',
  observationId: 'o2',
  createdAt: '2027-02-01T10:00:00.000Z',
  score: 0.5,
});
const ACME = result({
  observation: 'Acme hired three engineers to start the launch',
  observationId: 'o3',
  entityName: 'Acme',
  entityType: 'company',
  entityId: 'e2',
  score: 0.3,
});

type Reply = { status: number; body?: unknown };

/** A signed-in session whose recall answers with `answer(request)`. */
function searchServer(
  answer: (request: FakeRequest) => Reply,
  types = [
    { type: 'person', count: 12 },
    { type: 'company', count: 3 },
  ],
) {
  localStorage.setItem('auth_token', 'valid-token');
  const server = fakeServer({
    'GET /auth/me': () => ({ status: 200, body: TEST_USER }),
    'GET /api/recall': answer,
    'GET /api/entities/types': typePages(types),
  });
  const recalls = () => server.requests.filter((request) => request.path === '/api/recall');
  return { ...server, recalls };
}

const answers =
  (results: RecallResult[], timeRange: unknown = null) =>
  (request: FakeRequest): Reply => ({
    status: 200,
    body: { results, query: request.query.get('q'), timeRange },
  });

async function openSearch(path = '/search') {
  const user = userEvent.setup({ delay: null });
  const app = renderApp(path);
  await screen.findByRole('heading', { level: 1, name: 'Search' }, { timeout: 5000 });
  const box = screen.getByRole('searchbox', { name: 'Ask a question' });
  return { user, box, ...app };
}

const results = () => screen.findByRole('list', { name: 'Results' }, { timeout: 3000 });
const cards = (list: HTMLElement) => within(list).getAllByRole('article');
const marks = (element: HTMLElement) =>
  Array.from(element.querySelectorAll('mark')).map((mark) => mark.textContent);

describe('Search screen', { timeout: 20_000 }, () => {
  it('teaches what to ask before a question, with the box focused and nothing asked', async () => {
    const { recalls } = searchServer(answers([]));
    const { box } = await openSearch();
    expect(box).toHaveFocus();
    expect(screen.getByRole('heading', { name: 'Ask your memory a question' })).toBeVisible();
    const examples = screen.getByRole('list', { name: 'Example questions' });
    expect(within(examples).getAllByRole('button').length).toBeGreaterThanOrEqual(3);
    expect(recalls()).toEqual([]);
  });

  it('answers as the person types: once per pause, the question in the address', async () => {
    const { recalls } = searchServer(answers([MAYA_JOB, ACME]));
    const { user, box, router } = await openSearch();
    await user.type(box, 'When did Maya start her job?');

    const list = await results();
    expect(recalls()).toHaveLength(1);
    expect(recalls()[0]!.query.get('q')).toBe('When did Maya start her job?');
    expect(recalls()[0]!.query.has('types')).toBe(false);
    expect(router.state.location.search).toBe('?q=When+did+Maya+start+her+job%3F');

    const [first, second] = cards(list);
    expect(first).toHaveAccessibleName('Maya started her new job at Acme in March 2026');
    expect(marks(first!)).toEqual(['Maya', 'started', 'job']);
    expect(within(first!).getByRole('link', { name: 'Maya' })).toHaveAttribute(
      'href',
      '/entities/e1',
    );
    expect(within(first!).getByText('person')).toBeInTheDocument();
    expect(within(first!).getByText('Jan 5, 2027')).toBeInTheDocument();
    expect(first).toHaveTextContent(/noted Jan 5, 2027$/);
    expect(marks(second!)).toEqual(['start']);
    expect(within(second!).getByText('company')).toBeInTheDocument();
    expect(screen.getByText('2 results')).toBeInTheDocument();
  });

  it('asks the question in the address on arrival (a reload, or Back from an entity)', async () => {
    const { recalls } = searchServer(answers([MAYA_TEA]));
    const { box } = await openSearch('/search?q=what%20does%20Maya%20prefer');
    expect(box).toHaveValue('what does Maya prefer');
    const list = await results();
    expect(marks(cards(list)[0]!)).toEqual(['Prefers']);
    expect(recalls()).toHaveLength(1);
    expect(screen.getByText('1 result')).toBeInTheDocument();
  });

  it('asks an example question when it is clicked', async () => {
    const { recalls } = searchServer(answers([ACME]));
    const { user, box } = await openSearch();
    await user.click(screen.getByRole('button', { name: 'When did the project start?' }));
    expect(box).toHaveValue('When did the project start?');
    await results();
    expect(recalls().map((request) => request.query.get('q'))).toEqual([
      'When did the project start?',
    ]);
  });

  it('moves through the answers with the arrow keys, opens the entity with Enter', async () => {
    searchServer(answers([MAYA_JOB, MAYA_TEA, ACME]));
    const { user, box, router } = await openSearch('/search?q=maya');
    const list = await results();
    const [first, second, third] = cards(list);
    expect(box).not.toHaveAttribute('aria-activedescendant');

    await user.keyboard('{ArrowDown}');
    expect(box).toHaveAttribute('aria-activedescendant', first!.id);
    expect(first).toHaveAttribute('data-active', 'true');
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(box).toHaveAttribute('aria-activedescendant', third!.id);
    await user.keyboard('{ArrowUp}');
    expect(box).toHaveAttribute('aria-activedescendant', second!.id);
    expect(first).not.toHaveAttribute('data-active');
    expect(box).toHaveFocus();

    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(box).not.toHaveAttribute('aria-activedescendant');
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/entities/e2'), {
      timeout: 5000,
    });
  });

  it('clears the question with Escape, back to the examples', async () => {
    searchServer(answers([MAYA_JOB]));
    const { user, box, router } = await openSearch('/search?q=maya');
    await results();
    await user.keyboard('{ArrowDown}{Escape}');
    expect(box).toHaveValue('');
    expect(box).not.toHaveAttribute('aria-activedescendant');
    expect(screen.queryByRole('list', { name: 'Results' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Ask your memory a question' })).toBeVisible();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('filters by entity type, kept in the address', async () => {
    const { recalls } = searchServer((request) =>
      answers(request.query.get('types') === 'company' ? [ACME] : [MAYA_JOB, ACME])(request),
    );
    const { user, router } = await openSearch('/search?q=start');
    expect(cards(await results())).toHaveLength(2);

    await user.click(screen.getByRole('combobox', { name: 'Entity type' }));
    await user.click(await screen.findByRole('option', { name: 'Company (3)' }));
    await waitFor(() =>
      expect(cards(screen.getByRole('list', { name: 'Results' }))).toHaveLength(1),
    );
    expect(recalls().at(-1)!.query.get('types')).toBe('company');
    expect(recalls().at(-1)!.query.get('q')).toBe('start');
    expect(router.state.location.search).toBe('?q=start&type=company');
    expect(screen.getByRole('combobox', { name: 'Entity type' })).toHaveTextContent('Company');
  });

  it('says when nothing answers, and offers every type when one was chosen', async () => {
    const { recalls } = searchServer((request) =>
      answers(request.query.get('types') ? [] : [ACME])(request),
    );
    const { user } = await openSearch('/search?q=launch&type=person');
    expect(
      await screen.findByRole(
        'heading',
        { name: 'Nothing in memory answers that' },
        { timeout: 3000 },
      ),
    ).toBeVisible();
    expect(screen.getByText('No results')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Search all types' }));
    expect(cards(await results())).toHaveLength(1);
    expect(recalls().at(-1)!.query.has('types')).toBe(false);
  });

  it('says so in words when recall abstains: the best matches were too weak', async () => {
    searchServer((request) => ({
      status: 200,
      body: {
        results: [],
        query: request.query.get('q'),
        timeRange: null,
        abstained: true,
        abstainReason: 'The best matches were too weak: nothing in memory answers that.',
      },
    }));
    await openSearch('/search?q=Who+taught+Marguerite+to+sail%3F');
    expect(
      await screen.findByRole(
        'heading',
        { name: 'Nothing in memory answers that' },
        { timeout: 3000 },
      ),
    ).toBeVisible();
    expect(
      screen.getByText('The best matches in memory were too weak to answer it.'),
    ).toBeVisible();
    expect(screen.getByText('No results')).toBeInTheDocument();
  });

  it('keeps the plain wording when nothing matched at all (not abstained)', async () => {
    searchServer((request) => ({
      status: 200,
      body: { results: [], query: request.query.get('q'), timeRange: null, abstained: false },
    }));
    await openSearch('/search?q=anything');
    expect(
      await screen.findByRole(
        'heading',
        { name: 'Nothing in memory answers that' },
        { timeout: 3000 },
      ),
    ).toBeVisible();
    expect(
      screen.getByText('Try other words, or name the person or thing you mean.'),
    ).toBeVisible();
    expect(screen.queryByText(/too weak/)).toBeNull();
  });

  it('says the memory is empty, not that nothing answers, when the space holds nothing', async () => {
    searchServer(
      (request) => ({
        status: 200,
        body: { results: [], query: request.query.get('q'), timeRange: null, abstained: false },
      }),
      [],
    );
    await openSearch('/search?q=anything');
    expect(
      await screen.findByRole('heading', { name: 'Your memory is empty' }, { timeout: 3000 }),
    ).toBeVisible();
    expect(screen.queryByRole('heading', { name: 'Nothing in memory answers that' })).toBeNull();
  });

  it('keeps to a past week, month or year: sent as since, kept in the address, undone by Back', async () => {
    const { recalls } = searchServer(answers([MAYA_JOB]));
    const { user, router } = await openSearch('/search?q=maya');
    await results();
    const when = screen.getByRole('combobox', { name: 'Time range' });
    expect(when).toHaveValue('any');
    expect(recalls()[0]!.query.has('since')).toBe(false);

    await user.selectOptions(when, 'Past week');
    const weekAgo = presetSince('week', new Date());
    await waitFor(() => expect(recalls().at(-1)!.query.get('since')).toBe(weekAgo));
    expect(recalls().at(-1)!.query.has('until')).toBe(false);
    expect(recalls().at(-1)!.query.get('q')).toBe('maya');
    expect(router.state.location.search).toBe(`?q=maya&since=${weekAgo}`);
    expect(when).toHaveValue('week');

    await user.selectOptions(when, 'Past year');
    await waitFor(() =>
      expect(recalls().at(-1)!.query.get('since')).toBe(presetSince('year', new Date())),
    );
    expect(when).toHaveValue('year');

    // Each range is a step Back undoes.
    await router.navigate(-1);
    await waitFor(() => expect(when).toHaveValue('week'));
    await router.navigate(-1);
    await waitFor(() => expect(when).toHaveValue('any'));
    expect(router.state.location.search).toBe('?q=maya');
    expect(screen.getByRole('searchbox', { name: 'Ask a question' })).toHaveValue('maya');
  });

  it('reopens a shared link’s custom range, and asks with the days given', async () => {
    const { recalls } = searchServer(answers([MAYA_JOB]));
    const { router } = await openSearch('/search?q=maya&since=2026-03-01&until=2026-03-31');
    await results();
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveValue('custom');
    const from = screen.getByLabelText('From');
    const to = screen.getByLabelText('To');
    expect(from).toHaveValue('2026-03-01');
    expect(to).toHaveValue('2026-03-31');
    expect(recalls()[0]!.query.get('since')).toBe('2026-03-01');
    expect(recalls()[0]!.query.get('until')).toBe('2026-03-31');

    fireEvent.change(to, { target: { value: '2026-04-15' } });
    await waitFor(() => expect(recalls().at(-1)!.query.get('until')).toBe('2026-04-15'));
    expect(router.state.location.search).toBe('?q=maya&since=2026-03-01&until=2026-04-15');

    // A range that ends before it starts is said so, and not asked.
    const asked = recalls().length;
    fireEvent.change(from, { target: { value: '2026-05-01' } });
    expect(screen.getByRole('alert')).toHaveTextContent('The range ends before it starts');
    expect(from).toHaveAttribute('aria-invalid', 'true');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recalls()).toHaveLength(asked);
    expect(router.state.location.search).toBe('?q=maya&since=2026-03-01&until=2026-04-15');

    // Emptying a day leaves that end open.
    fireEvent.change(to, { target: { value: '' } });
    await waitFor(() => expect(router.state.location.search).toBe('?q=maya&since=2026-05-01'));
    expect(recalls().at(-1)!.query.has('until')).toBe(false);
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveValue('custom');
  });

  it('offers custom days from any time, and turns a preset into its days', async () => {
    const { recalls } = searchServer(answers([MAYA_JOB]));
    const { user, router } = await openSearch('/search?q=maya');
    await results();
    const when = screen.getByRole('combobox', { name: 'Time range' });
    await user.selectOptions(when, 'Custom range');
    expect(screen.getByLabelText('From')).toHaveValue('');
    expect(screen.getByLabelText('To')).toHaveValue('');
    expect(router.state.location.search).toBe('?q=maya');

    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-01-10' } });
    await waitFor(() => expect(recalls().at(-1)!.query.get('since')).toBe('2026-01-10'));
    expect(when).toHaveValue('custom');

    await user.selectOptions(when, 'Past month');
    const monthAgo = presetSince('month', new Date());
    await waitFor(() => expect(recalls().at(-1)!.query.get('since')).toBe(monthAgo));
    expect(screen.queryByLabelText('From')).toBeNull();
    await user.selectOptions(when, 'Custom range');
    expect(screen.getByLabelText('From')).toHaveValue(monthAgo);
    expect(screen.getByLabelText('To')).not.toHaveValue('');

    await user.selectOptions(when, 'Any time');
    await waitFor(() => expect(router.state.location.search).toBe('?q=maya'));
    expect(screen.queryByLabelText('From')).toBeNull();
  });

  it('dates each result: the fact’s day, its span, or when it was noted', async () => {
    searchServer(
      answers([
        result({ observationId: 'a', validFrom: '2026-03-01T00:00:00.000Z', validTo: null }),
        result({
          observationId: 'b',
          validFrom: '2026-03-01T00:00:00.000Z',
          validTo: '2026-06-30T00:00:00.000Z',
        }),
        result({ observationId: 'c', validFrom: null, validTo: null }),
      ]),
    );
    await openSearch('/search?q=maya');
    const [day, span, noted] = cards(await results());
    expect(day).toHaveTextContent(/person\s*Mar 1, 2026$/);
    expect(within(day!).getByText('Mar 1, 2026')).toHaveAttribute(
      'datetime',
      '2026-03-01T00:00:00.000Z',
    );
    expect(span).toHaveTextContent(/Mar 1, 2026 – Jun 30, 2026$/);
    expect(noted).toHaveTextContent(/noted Jan 5, 2027$/);
  });

  it('notes, quietly, a range the question’s own words set', async () => {
    searchServer((request) =>
      answers(
        [MAYA_JOB],
        request.query.get('q') === 'what happened in march 2026'
          ? {
              since: '2026-03-01T00:00:00.000Z',
              until: '2026-03-31T23:59:59.999Z',
              source: 'question',
            }
          : { since: '2026-03-01T00:00:00.000Z', until: null, source: 'parameters' },
      )(request),
    );
    await openSearch('/search?q=what%20happened%20in%20march%202026');
    await results();
    expect(
      screen.getByText('Within Mar 1, 2026 – Mar 31, 2026 (from your question)'),
    ).toBeVisible();
  });

  it('does not note a range the filter set', async () => {
    searchServer(
      answers([MAYA_JOB], { since: '2026-03-01T00:00:00.000Z', until: null, source: 'parameters' }),
    );
    await openSearch('/search?q=maya&since=2026-03-01');
    await results();
    expect(screen.queryByText(/from your question/)).toBeNull();
  });

  it('says when nothing answers in the range, and offers any time', async () => {
    const { recalls } = searchServer((request) =>
      answers(request.query.get('since') ? [] : [ACME])(request),
    );
    const { user, router } = await openSearch('/search?q=launch&since=2020-01-01&until=2020-12-31');
    expect(
      await screen.findByRole(
        'heading',
        { name: 'Nothing in memory answers that' },
        { timeout: 3000 },
      ),
    ).toBeVisible();
    expect(screen.getByText(/Nothing in this time range matches/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Search any time' }));
    expect(cards(await results())).toHaveLength(1);
    expect(recalls().at(-1)!.query.has('since')).toBe(false);
    expect(router.state.location.search).toBe('?q=launch');
  });

  it('shows the server’s error inline, and Try again asks again', async () => {
    let fail = true;
    searchServer((request) =>
      fail
        ? { status: 400, body: { error: 'Query is required', code: 'VALIDATION_ERROR' } }
        : answers([MAYA_JOB])(request),
    );
    const { user } = await openSearch('/search?q=maya');
    const alert = await screen.findByRole('alert', {}, { timeout: 5000 });
    expect(alert).toHaveTextContent('Could not search your memory: Query is required');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(cards(await results())).toHaveLength(1);
  });

  it('never lets a slow answer to an earlier question replace a newer one', async () => {
    const { fetchMock } = searchServer(answers([]));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Every question is answered with one observation that repeats it; 'maya' answers late.
    const echo = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      if (url.pathname !== '/api/recall') return fetchMock(input, init);
      const q = url.searchParams.get('q') ?? '';
      if (q === 'maya') await gate;
      return new Response(
        JSON.stringify({
          results: [result({ observation: `About ${q}`, observationId: q })],
          query: q,
        }),
        { status: 200, headers: { 'Content-Type': 'application/json' } },
      );
    });
    vi.stubGlobal('fetch', echo);

    const { user, box } = await openSearch();
    await user.type(box, 'maya');
    await waitFor(() =>
      expect(echo).toHaveBeenCalledWith(expect.stringContaining('q=maya'), expect.anything()),
    );
    await user.type(box, ' tea');
    const list = await results();
    expect(cards(list)[0]).toHaveAccessibleName('About maya tea');

    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cards(screen.getByRole('list', { name: 'Results' }))[0]).toHaveAccessibleName(
      'About maya tea',
    );
  });

  it('is reached from the dashboard’s Search Knowledge', async () => {
    localStorage.setItem('auth_token', 'valid-token');
    fakeServer({ 'GET /auth/me': () => ({ status: 200, body: TEST_USER }) });
    const user = userEvent.setup({ delay: null });
    renderApp('/dashboard');
    await user.click(
      await screen.findByRole('link', { name: /Search Knowledge/ }, { timeout: 5000 }),
    );
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Search' }, { timeout: 5000 }),
    ).toBeVisible();
    expect(screen.getByRole('searchbox', { name: 'Ask a question' })).toHaveFocus();
  });
});
