import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { createMemoryRouter, Link, Outlet, RouterProvider, useNavigation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { DialogBackGuard } from '@/components/dialog-back-guard';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogTitle,
  useDialogEdited,
} from './dialog';

function Picked({ picked }: { picked: boolean }) {
  useDialogEdited(picked);
  return null;
}

/** A page with a button that opens a form dialog, guarded or not. */
function FormPage({ guard = true }: { guard?: boolean }) {
  const [open, setOpen] = useState(false);
  const [picked, setPicked] = useState(false);
  // Re-rendered by every router change, with a new onOpenChange each time (as screens do).
  useNavigation();
  return (
    <>
      <button onClick={() => setOpen(true)}>Open</button>
      <p>{open ? 'dialog open' : 'dialog closed'}</p>
      <Dialog open={open} onOpenChange={(next) => setOpen(next)}>
        <DialogContent guardInput={guard}>
          <DialogTitle>Create Thing</DialogTitle>
          <DialogDescription>A form</DialogDescription>
          {/* Focused on arrival, as the entity form is. */}
          <input aria-label="Name" autoFocus />
          <button onClick={() => setPicked(true)}>Pick</button>
          <Picked picked={picked} />
          <DialogClose>Cancel</DialogClose>
        </DialogContent>
      </Dialog>
    </>
  );
}

function renderPage(guard = true) {
  const router = createMemoryRouter(
    [
      {
        element: (
          <>
            <DialogBackGuard />
            <Outlet />
          </>
        ),
        children: [
          { path: '/', element: <Link to="/form">Go to form</Link> },
          { path: '/form', element: <FormPage guard={guard} /> },
        ],
      },
    ],
    { initialEntries: ['/', '/form'], initialIndex: 1 },
  );
  render(<RouterProvider router={router} />);
  return { router, user: userEvent.setup() };
}

describe('a form dialog (guardInput)', () => {
  it('closes on Escape when nothing was typed', async () => {
    const { user } = renderPage();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.keyboard('{Escape}');
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();
    expect(screen.queryByText('Discard your changes?')).not.toBeInTheDocument();
  });

  it('asks before Escape throws typed input away: Keep editing keeps it, Discard closes', async () => {
    const { user } = renderPage();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.type(screen.getByLabelText('Name'), 'Ada');
    await user.keyboard('{Escape}');
    const ask = await screen.findByRole('alertdialog', { name: 'Discard your changes?' });
    expect(ask).toHaveTextContent('What you entered in this dialog will be lost.');
    await user.click(screen.getByRole('button', { name: 'Keep editing' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(screen.getByLabelText('Name')).toHaveValue('Ada');

    await user.keyboard('{Escape}');
    await screen.findByRole('alertdialog');
    // Escape on the question itself keeps editing.
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(screen.getByText('dialog open')).toBeInTheDocument();

    await user.keyboard('{Escape}');
    await user.click(await screen.findByRole('button', { name: 'Discard' }));
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();

    // The next opening starts clean: Escape closes at once.
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(screen.getByLabelText('Name')).toHaveValue('');
    await user.keyboard('{Escape}');
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('counts a choice the form reports (useDialogEdited) as input', async () => {
    const { user } = renderPage();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.click(screen.getByRole('button', { name: 'Pick' }));
    await user.keyboard('{Escape}');
    expect(await screen.findByRole('alertdialog')).toBeInTheDocument();
  });

  it('lets Cancel close without asking', async () => {
    const { user } = renderPage();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.type(screen.getByLabelText('Name'), 'Ada');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();
  });

  it('does not ask when the dialog is not guarded', async () => {
    const { user } = renderPage(false);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.type(screen.getByLabelText('Name'), 'Ada');
    await user.keyboard('{Escape}');
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();
  });
});

describe("the browser's Back with a dialog open", () => {
  it('closes the dialog and stays on the page', async () => {
    const { user, router } = renderPage();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await act(() => router.navigate(-1));
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/form');
    // With no dialog open, Back leaves the page as before.
    await act(() => router.navigate(-1));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('asks first when something was typed', async () => {
    const { user, router } = renderPage();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.type(screen.getByLabelText('Name'), 'Ada');
    await act(() => router.navigate(-1));
    expect(await screen.findByRole('alertdialog')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/form');
    await user.click(screen.getByRole('button', { name: 'Discard' }));
    expect(await screen.findByText('dialog closed')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/form');
  });
});
