import { describe, expect, it } from 'vitest';
import {
  asOfFromSearch,
  asOfLabel,
  fromLocalInput,
  sliderPositionOf,
  sliderToIso,
  toLocalInput,
} from './as-of-model';

describe('as of', () => {
  it('reads asOf from the address when the server would', () => {
    expect(asOfFromSearch(new URLSearchParams('asOf=2026-11-20T10:00:00.000Z'))).toBe(
      '2026-11-20T10:00:00.000Z',
    );
    expect(asOfFromSearch(new URLSearchParams('asOf=seq:42'))).toBe('seq:42');
    expect(asOfFromSearch(new URLSearchParams('asOf=yesterday'))).toBeNull();
    expect(asOfFromSearch(new URLSearchParams())).toBeNull();
    expect(asOfLabel('seq:42')).toBe('change #42');
  });

  it('turns slider positions into times and back, finest near now', () => {
    const now = Date.parse('2026-11-20T12:34:56Z');
    expect(sliderToIso(1000, 7, now)).toBeNull();
    expect(sliderToIso(0, 7, now)).toBe('2026-11-13T12:34:00.000Z');
    // Halfway is a quarter of the window back: 42 hours of 7 days.
    expect(sliderToIso(500, 7, now)).toBe('2026-11-18T18:34:00.000Z');
    // The last step before now is seconds, not hours, back.
    expect(Date.parse(sliderToIso(999, 365, now)!)).toBeGreaterThan(now - 60 * 60_000);
    expect(sliderPositionOf('2026-11-18T18:34:56.000Z', 7, now)).toBe(500);
    expect(sliderPositionOf('2026-11-20T12:34:50.000Z', 7, now)).toBeLessThan(1000);
    expect(sliderPositionOf('2020-01-01T00:00:00Z', 7, now)).toBe(0);
    expect(sliderPositionOf('2027-01-01T00:00:00Z', 7, now)).toBe(1000);
  });

  it('round-trips a datetime-local value', () => {
    const iso = fromLocalInput('2026-11-20T10:30');
    expect(iso).not.toBeNull();
    expect(toLocalInput(iso!)).toBe('2026-11-20T10:30');
    expect(fromLocalInput('2026-11-20')).toBeNull();
  });
});
