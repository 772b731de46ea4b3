import { member, type Member, type MembersResponse, type Role } from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { memberKeys } from '@/lib/api/keys';

/**
 * PATCH /api/members/{userId} {role} → the member as they now are. 403 when
 * the caller's role may not (an admin and an owner), 409 for the last owner.
 */
export function updateMemberRole(userId: string, role: Role): Promise<Member> {
  return apiRequest(`/api/members/${encodeURIComponent(userId)}`, {
    method: 'PATCH',
    body: { role },
    schema: member,
  });
}

export function useUpdateMemberRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) =>
      updateMemberRole(userId, role),
    onSuccess: async (updated) => {
      // The answer is the whole member: shown at once, then read again with the rest.
      queryClient.setQueryData<MembersResponse>(memberKeys.list, (data) =>
        data
          ? {
              ...data,
              members: data.members.map((m) => (m.userId === updated.userId ? updated : m)),
            }
          : data,
      );
      await queryClient.invalidateQueries({ queryKey: memberKeys.list });
    },
  });
}
