import { parseAsOf } from '@engram/shared';
import { formatDateTime } from '@/lib/format';

/*
 * The Graph view's "As of" (docs/history.md) as plain functions: the `asOf`
 * of the address, its label, and the slider's scale over the history kept.
 */

/** The Graph view's `asOf` address parameter when it is one the server reads (docs/history.md), else null (now). */
export function asOfFromSearch(search: URLSearchParams): string | null {
  const raw = search.get('asOf');
  return raw !== null && parseAsOf(raw) !== undefined ? raw : null;
}

/** 'Nov 20, 2026, 10:00 AM', or 'change #42' for `seq:42`. */
export function asOfLabel(asOf: string): string {
  const parsed = parseAsOf(asOf);
  if (parsed && 'seq' in parsed) return `change #${parsed.seq}`;
  return formatDateTime(asOf);
}

/** Positions of the as-of slider: its left end is the oldest moment kept, its right end now. */
export const SLIDER_STEPS = 1000;
const DAY_MS = 24 * 60 * 60_000;

/**
 * The moment at slider `position` over `days` of history, on the minute (null
 * at the right end: now). The scale is quadratic, fine near now and coarse in
 * the distant past: the last hour spans several steps even in a year's window.
 */
export function sliderToIso(position: number, days: number, now: number): string | null {
  const fromRight = (SLIDER_STEPS - position) / SLIDER_STEPS;
  if (fromRight <= 0) return null;
  const at = new Date(now - days * DAY_MS * fromRight * fromRight);
  at.setSeconds(0, 0);
  return at.toISOString();
}

/** Where `iso` sits on the slider over `days` (the right end for now, the future or an unreadable time). */
export function sliderPositionOf(iso: string, days: number, now: number): number {
  const at = Date.parse(iso);
  if (Number.isNaN(at) || at >= now) return SLIDER_STEPS;
  const share = Math.min(1, Math.sqrt((now - at) / (days * DAY_MS)));
  return Math.round(SLIDER_STEPS * (1 - share));
}

const pad = (value: number) => String(value).padStart(2, '0');

/** An ISO time as a datetime-local input's value (local time, to the minute). */
export function toLocalInput(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** A datetime-local input's value (local time) as an ISO time; null when incomplete. */
export function fromLocalInput(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}
