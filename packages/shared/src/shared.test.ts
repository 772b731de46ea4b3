import { describe, expect, it } from 'vitest';
import {
  entityInput,
  entityTypeColor,
  EXTRA_PALETTE,
  KNOWN_ENTITY_TYPES,
  maskKey,
  planById,
  PLANS,
  registerInput,
  typeLabel,
} from './index.js';

describe('plan catalog', () => {
  it('has the pricing page limits and annual twins', () => {
    expect(planById('free').features).toMatchObject({
      maxEntities: 1_000,
      maxQueries: 15_000,
      maxApiKeys: 1,
      maxWebhooks: 0,
    });
    expect(planById('team').name).toBe('Power User');
    expect(planById('team').features.maxWebhooks).toBe(-1);
    expect(planById('pro-annual')).toMatchObject({ interval: 'year', price: 20_000 });
    expect(planById('free').priceId).toBeNull();
    expect(PLANS.filter((plan) => plan.id.endsWith('-annual'))).toHaveLength(3);
  });

  it('allows no plan less storage than the free plan (the server skips the plan read below it)', () => {
    const free = planById('free').features;
    for (const plan of PLANS) {
      for (const limit of ['maxEntities', 'maxObservationsPerEntity', 'maxStorageBytes'] as const) {
        const value = plan.features[limit];
        expect(value === -1 || value >= free[limit], `${plan.id} ${limit}`).toBe(true);
      }
    }
  });

  it('gives unknown plans the free limits', () => {
    expect(planById('platinum').id).toBe('free');
    expect(planById(undefined).id).toBe('free');
  });
});

describe('display helpers', () => {
  it('labels types and masks keys as documented', () => {
    expect(typeLabel('depends_on')).toBe('Depends on');
    expect(typeLabel('part-of')).toBe('Part of');
    expect(maskKey('eng_key_abcdefghijklmnopqrstuvwxyz')).toBe('eng_ke…wxyz');
    expect(maskKey('short')).toBe('short');
  });

  it('colours known types and hashes others stably', () => {
    expect(entityTypeColor('person')).toBe('#10b981');
    expect(entityTypeColor('gadget')).toBe(entityTypeColor('gadget'));
  });

  it('never gives another type a colour near a known type’s or another’s (tool is not person)', () => {
    const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    // The "redmean" approximation of how far apart two colours look.
    const distance = (a: string, b: string) => {
      const [r1, g1, b1] = rgb(a) as [number, number, number];
      const [r2, g2, b2] = rgb(b) as [number, number, number];
      const mean = (r1 + r2) / 2;
      return Math.sqrt(
        (2 + mean / 256) * (r1 - r2) ** 2 +
          4 * (g1 - g2) ** 2 +
          (2 + (255 - mean) / 256) * (b1 - b2) ** 2,
      );
    };
    const known = Object.values(KNOWN_ENTITY_TYPES);
    EXTRA_PALETTE.forEach((colour, index) => {
      for (const other of [...known, ...EXTRA_PALETTE.slice(index + 1)]) {
        expect(distance(colour, other), `${colour} and ${other}`).toBeGreaterThanOrEqual(100);
      }
    });
    expect(distance(entityTypeColor('tool'), entityTypeColor('person'))).toBeGreaterThanOrEqual(
      100,
    );
  });
});

describe('input schemas', () => {
  it('trims and lower-cases sign-up emails', () => {
    const parsed = registerInput.parse({
      email: '  Ada@Example.COM ',
      password: 'Password123',
      firstName: ' Ada ',
      lastName: 'Lovelace',
    });
    expect(parsed).toMatchObject({ email: 'ada@example.com', firstName: 'Ada' });
  });

  it('refuses NUL characters and over-deep metadata', () => {
    expect(entityInput.safeParse({ name: 'a\u0000b', type: 't' }).success).toBe(false);
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 5_000; level++) deep = { next: deep };
    expect(entityInput.safeParse({ name: 'a', type: 't', metadata: deep }).success).toBe(false);
    expect(entityInput.safeParse({ name: ' a ', type: 't' }).data?.name).toBe('a');
  });
});
