import { validityLabel, type Validity } from '../history-model';

/**
 * When the fact held in the world (validFrom/validTo, when the writer said;
 * docs/history.md), muted beside the date it was recorded.
 */
export function ValidityNote({ of }: { of: Validity }) {
  const label = validityLabel(of);
  return label ? <span data-testid="validity">{label}</span> : null;
}
