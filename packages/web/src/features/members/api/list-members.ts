import { membersResponse, type MembersResponse } from '@engram/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { memberKeys } from '@/lib/api/keys';

/** GET /api/members → the account's members, pending invitations and the plan's limit (any member may read). */
export function listMembers(): Promise<MembersResponse> {
  return apiRequest('/api/members', { schema: membersResponse });
}

export function membersQueryOptions() {
  return queryOptions({ queryKey: memberKeys.list, queryFn: listMembers });
}

export function useMembers() {
  return useQuery(membersQueryOptions());
}
