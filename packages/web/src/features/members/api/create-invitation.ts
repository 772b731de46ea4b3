import {
  createdInvitation,
  type CreatedInvitation,
  type CreateInvitationInput,
} from '@engram/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { memberKeys } from '@/lib/api/keys';

/**
 * POST /api/members/invitations {email, role} → 201 with the link (its
 * single-use token: shown once) and whether it was emailed. 402 when the
 * plan has no room, 409 when the person is already in or invited, 400 naming
 * the field.
 */
export function createInvitation(input: CreateInvitationInput): Promise<CreatedInvitation> {
  return apiRequest('/api/members/invitations', {
    method: 'POST',
    body: input,
    schema: createdInvitation,
  });
}

export function useCreateInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createInvitation,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: memberKeys.list }),
  });
}
