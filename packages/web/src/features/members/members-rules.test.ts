import type { Member, Role } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import {
  assignableRoles,
  canLeave,
  canManageMembers,
  canRemove,
  canTransferTo,
  displayName,
  errorMessage,
  expiryLabel,
  initials,
  isFull,
  isSingleSeat,
  lastActiveLabel,
  lastActiveSentence,
  seatsLabel,
} from './members-rules';

const person = (userId: string, role: Role) => ({ userId, role });
const ME = 'me';

describe('who may do what to whom', () => {
  it('owners and admins manage members; members and viewers only read', () => {
    expect(canManageMembers('owner')).toBe(true);
    expect(canManageMembers('admin')).toBe(true);
    expect(canManageMembers('member')).toBe(false);
    expect(canManageMembers('viewer')).toBe(false);
    expect(canManageMembers(null)).toBe(false);
  });

  it('an owner may give anyone else any role', () => {
    const owner = person(ME, 'owner');
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
      expect(assignableRoles(owner, person('x', role))).toEqual([
        'owner',
        'admin',
        'member',
        'viewer',
      ]);
    }
  });

  it('an admin changes anyone but owners, and never makes an owner', () => {
    const admin = person(ME, 'admin');
    expect(assignableRoles(admin, person('x', 'owner'))).toEqual([]);
    for (const role of ['admin', 'member', 'viewer'] as const) {
      expect(assignableRoles(admin, person('x', role))).toEqual(['admin', 'member', 'viewer']);
    }
  });

  it('members and viewers change no role', () => {
    for (const actorRole of ['member', 'viewer'] as const) {
      for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
        expect(assignableRoles(person(ME, actorRole), person('x', role))).toEqual([]);
      }
    }
  });

  it('nobody changes their own role or removes themselves here (they leave)', () => {
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
      expect(assignableRoles(person(ME, role), person(ME, role))).toEqual([]);
      expect(canRemove(person(ME, role), person(ME, role))).toBe(false);
    }
  });

  it('owners remove anyone else; admins anyone but owners; members and viewers nobody', () => {
    const targets = ['owner', 'admin', 'member', 'viewer'] as const;
    expect(targets.map((role) => canRemove(person(ME, 'owner'), person('x', role)))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(targets.map((role) => canRemove(person(ME, 'admin'), person('x', role)))).toEqual([
      false,
      true,
      true,
      true,
    ]);
    for (const actorRole of ['member', 'viewer'] as const) {
      expect(targets.some((role) => canRemove(person(ME, actorRole), person('x', role)))).toBe(
        false,
      );
    }
  });

  it('only an owner transfers ownership, to someone else who is not an owner yet', () => {
    expect(canTransferTo(person(ME, 'owner'), person('x', 'admin'))).toBe(true);
    expect(canTransferTo(person(ME, 'owner'), person('x', 'viewer'))).toBe(true);
    expect(canTransferTo(person(ME, 'owner'), person('x', 'owner'))).toBe(false);
    expect(canTransferTo(person(ME, 'owner'), person(ME, 'owner'))).toBe(false);
    expect(canTransferTo(person(ME, 'admin'), person('x', 'member'))).toBe(false);
  });

  it('anyone may leave but the last owner, who transfers ownership first', () => {
    const alone = [{ role: 'owner' as const }, { role: 'member' as const }];
    const two = [{ role: 'owner' as const }, { role: 'owner' as const }];
    expect(canLeave(person(ME, 'owner'), alone)).toBe(false);
    expect(canLeave(person(ME, 'owner'), two)).toBe(true);
    expect(canLeave(person(ME, 'admin'), alone)).toBe(true);
    expect(canLeave(person(ME, 'viewer'), alone)).toBe(true);
  });
});

describe('the plan’s number of members', () => {
  const people = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ userId: `u${index}` }) as Member);
  const invites = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      id: `i${index}`,
      email: `i${index}@example.com`,
      role: 'member' as const,
      expiresAt: '2027-01-05T10:00:00.000Z',
    }));

  it('counts pending invitations toward the limit', () => {
    expect(seatsLabel({ members: people(3), invitations: [], maxMembers: 5 })).toBe(
      '3 of 5 members',
    );
    expect(seatsLabel({ members: people(2), invitations: invites(1), maxMembers: 5 })).toBe(
      '3 of 5 members (1 invited)',
    );
    expect(seatsLabel({ members: people(1), invitations: [], maxMembers: 1 })).toBe(
      '1 of 1 member',
    );
    expect(seatsLabel({ members: people(12), invitations: invites(2), maxMembers: -1 })).toBe(
      '14 members · Unlimited (2 invited)',
    );
  });

  it('is full when members and invitations reach it; unlimited never is', () => {
    expect(isFull({ members: people(4), invitations: invites(1), maxMembers: 5 })).toBe(true);
    expect(isFull({ members: people(4), invitations: [], maxMembers: 5 })).toBe(false);
    expect(isFull({ members: people(400), invitations: [], maxMembers: -1 })).toBe(false);
  });

  it('Free and Starter are for one person', () => {
    expect(isSingleSeat(1)).toBe(true);
    expect(isSingleSeat(5)).toBe(false);
    expect(isSingleSeat(-1)).toBe(false);
  });
});

describe('how members are shown', () => {
  const NOW = new Date('2027-01-10T12:00:00.000Z').getTime();

  it('names a member, or falls back to the email', () => {
    const ada = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };
    expect(displayName(ada)).toBe('Ada Lovelace');
    expect(initials(ada)).toBe('AL');
    const nameless = { firstName: '', lastName: '', email: 'grace@example.com' };
    expect(displayName(nameless)).toBe('grace@example.com');
    expect(initials(nameless)).toBe('G');
  });

  it('says when a member was last active, relative while recent', () => {
    expect(lastActiveLabel(null, NOW)).toBe('Never');
    expect(lastActiveLabel('2027-01-10T11:59:40.000Z', NOW)).toBe('Just now');
    expect(lastActiveLabel('2027-01-10T11:55:00.000Z', NOW)).toBe('5 min ago');
    expect(lastActiveLabel('2027-01-10T09:00:00.000Z', NOW)).toBe('3 h ago');
    expect(lastActiveLabel('2027-01-09T09:00:00.000Z', NOW)).toBe('Yesterday');
    expect(lastActiveLabel('2027-01-06T12:00:00.000Z', NOW)).toBe('4 days ago');
    expect(lastActiveLabel('2026-12-01T12:00:00.000Z', NOW)).toBe('Dec 1, 2026');
    expect(lastActiveSentence(null, NOW)).toBe('Not active yet');
    expect(lastActiveSentence('2027-01-10T11:59:40.000Z', NOW)).toBe('Active just now');
    expect(lastActiveSentence('2027-01-10T09:00:00.000Z', NOW)).toBe('Active 3 h ago');
  });

  it('says when an invitation expires', () => {
    expect(expiryLabel('2027-01-15T12:00:00.000Z', NOW)).toBe('Expires Jan 15, 2027');
    expect(expiryLabel('2027-01-09T12:00:00.000Z', NOW)).toBe('Expired');
  });

  it('shows the server’s reason for a refusal, else the fallback', () => {
    const lastOwner = new ApiError(
      409,
      { error: 'The account’s last owner cannot leave', code: 'CONFLICT' },
      'x',
    );
    expect(errorMessage(lastOwner, 'Failed')).toBe('The account’s last owner cannot leave');
    expect(errorMessage(new ApiError(0, null, 'Could not reach the server'), 'Failed')).toBe(
      'Failed',
    );
  });
});
