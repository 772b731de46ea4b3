import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { COLLAPSE_OVER_CHARS, CollapsibleText, isLongText } from './collapsible-text';

describe('CollapsibleText', () => {
  it('collapses only texts over 600 characters', () => {
    expect(COLLAPSE_OVER_CHARS).toBe(600);
    expect(isLongText('x'.repeat(600))).toBe(false);
    expect(isLongText('x'.repeat(601))).toBe(true);
  });

  it('shows a short text whole, with no button', () => {
    render(<CollapsibleText text="Prefers tea" />);
    expect(screen.getByText('Prefers tea')).not.toHaveAttribute('data-collapsed');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('folds a long text behind Show more, and Show less folds it again', async () => {
    const user = userEvent.setup();
    const text = 'word '.repeat(1000).trim();
    render(<CollapsibleText text={text} />);
    const shown = screen.getByText(text);
    expect(shown).toHaveAttribute('data-collapsed');
    expect(shown).toHaveClass('line-clamp-6');
    const more = screen.getByRole('button', { name: 'Show more' });
    expect(more).toHaveAttribute('aria-expanded', 'false');
    expect(more).toHaveAttribute('aria-controls', shown.id);
    await user.click(more);
    expect(shown).not.toHaveAttribute('data-collapsed');
    const less = screen.getByRole('button', { name: 'Show less' });
    expect(less).toHaveAttribute('aria-expanded', 'true');
    await user.click(less);
    expect(shown).toHaveAttribute('data-collapsed');
  });
});
